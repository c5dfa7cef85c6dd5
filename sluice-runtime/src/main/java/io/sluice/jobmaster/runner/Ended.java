package io.sluice.jobmaster.runner;

import io.sluice.job.JobResult;
import io.sluice.protocol.JobDetails;
import io.sluice.protocol.JobHealth;
import io.sluice.rpc.Acknowledge;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;

/**
 * The job's result is durable (and the runner's result future completed): nothing acts any more;
 * status shows the final details. The owner closes the runner, which leaves the election.
 */
final class Ended implements RunnerState {
    private final JobResult result;
    private final JobDetails finalDetails;

    Ended(JobResult result, JobDetails finalDetails) {
        this.result = result;
        this.finalDetails = finalDetails;
    }

    JobResult result() {
        return result;
    }

    @Override
    public CompletableFuture<Void> grant(UUID s) {
        return CompletableFuture.completedFuture(null);
    }

    @Override
    public CompletableFuture<Void> revoke() {
        return CompletableFuture.completedFuture(null);
    }

    @Override
    public CompletableFuture<Acknowledge> cancel() {
        return CompletableFuture.completedFuture(Acknowledge.INSTANCE);
    }

    @Override
    public StatusView view() {
        return new StatusView.Fixed(finalDetails, null);
    }

    /** The details shown from now on. */
    JobDetails finalDetails() {
        return finalDetails;
    }

    @Override
    public JobHealth health() {
        return JobHealth.NONE;
    }

    @Override
    public void jobMasterEnded(RunningJobMaster jm, JobResult jobMasterResult) {
    }
}
