package io.sluice.jobmaster.runner;

import io.sluice.checkpoint.CompletedCheckpoint;
import io.sluice.graph.JobGraph;
import io.sluice.graph.JobVertex;

/**
 * Refuses to start a job from a checkpoint or savepoint ({@code checkpoints.restore-from}) in which one
 * of its sources ran at another parallelism, unless that source redistributes its positions
 * ({@link io.sluice.api.source.Source#redistributesPositions()}; the sequence and unbounded Kafka sources
 * do). The others keep a position per subtask index, so such a restore would read some records twice
 * and others never, and finish with wrong results and no error. Keyed state and the operators' own state
 * are always redistributed.
 *
 * <p>Stateless; any thread.
 */
final class SourceParallelismCheck {
    private SourceParallelismCheck() {
    }

    /**
     * Throws {@link RestoreCheckpointException} (a permanent error: the job fails, nothing is deleted) when a
     * source vertex of {@code job} has another parallelism than in {@code from}; {@code spec} is what the
     * user gave, for the message.
     */
    static void check(JobGraph job, CompletedCheckpoint from, String spec) {
        for (JobVertex v : job.vertices()) {
            if (!v.isSource() || v.redistributesSourcePositions()) {
                continue;
            }
            int before = from.parallelismOf(v.id());
            if (before > 0 && before != v.parallelism()) {
                throw new RestoreCheckpointException("checkpoints.restore-from '" + spec + "': source '" + v.name()
                        + "' ran at parallelism " + before + " in checkpoint " + from.checkpointId() + ", and this job"
                        + " runs it at parallelism " + v.parallelism() + ". This source does not redistribute its"
                        + " positions, so its subtasks would read some records twice and others never. Run the"
                        + " source at parallelism " + before + " (setParallelism(" + before + ") on the source in the"
                        + " program; the operators after it may still change parallelism), or start the job at"
                        + " parallelism " + before + ". Nothing was deleted.");
            }
        }
    }
}
