package io.sluice.jobmaster.runner;

import io.sluice.checkpoint.CheckpointIdCounter;
import io.sluice.checkpoint.CheckpointStorage;
import io.sluice.checkpoint.CompletedCheckpointStore;
import io.sluice.job.JobResult;

/**
 * What one successful recovery attempt produced: either the result of a job that already ended
 * ({@code alreadyFinished}, the rest null), or the recovered checkpoint store, id counter and
 * storage a job master starts from.
 */
record Recovered(JobResult alreadyFinished, CompletedCheckpointStore store, CheckpointIdCounter counter,
                 CheckpointStorage storage) {
}
