package io.sluice.checkpoint.coordinator;

import io.sluice.checkpoint.CheckpointException;
import io.sluice.checkpoint.CheckpointFailureReason;
import io.sluice.checkpoint.CheckpointMetricsListener;
import io.sluice.graph.JobConfig;
import io.sluice.graph.JobId;
import io.sluice.rpc.MainThreadExecutor;
import io.sluice.util.Clock;
import java.time.Instant;
import java.util.Objects;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Failure accounting of one job's checkpoints. Each failure comes with its classification
 * ({@link CheckpointFailureReason}); only those the tasks caused count towards
 * {@code tolerableCheckpointFailures}, and one beyond the tolerance fails the job over (once, then
 * the count starts again). Storage failures and timeouts are counted and reported ("failing since
 * T", the last failure) but never fail the job. A completed checkpoint resets the run of failures.
 *
 * <p>While checkpoints keep failing, the first failure and every {@value #WARN_EVERY}-th are logged
 * at WARN, the others at DEBUG; every task-caused one at WARN, since it brings the job closer to a
 * failover.
 *
 * <p>Threading: the job master's main thread only; every method checks it.
 */
final class CheckpointFailures {
    private static final Logger LOG = LoggerFactory.getLogger(CheckpointFailures.class);
    /** While checkpoints keep failing, every this-many-th failure is logged at WARN (the others at DEBUG). */
    private static final int WARN_EVERY = 10;

    private final JobId jobId;
    private final JobConfig config;
    private final MainThreadExecutor mainThread;
    private final Clock clock;
    /** Fails the job over ({@link CheckpointCoordinator.Context#failJob}). */
    private final Consumer<Throwable> failJob;

    private CheckpointMetricsListener metricsListener = CheckpointMetricsListener.NONE;
    private long failed;
    private int consecutiveFailures;
    /** Consecutive failures that count towards the tolerance (caused by the tasks); reset by a completion. */
    private int consecutiveTaskFailures;
    /** Wall-clock time of the first failure since the last completion; -1 while checkpoints succeed. */
    private long failingSinceMillis = -1;
    /** "Checkpoint 7 failed (storage): ..." of the latest failure, or {@code null} before the first. */
    private String lastFailure;

    CheckpointFailures(JobId jobId, JobConfig config, MainThreadExecutor mainThread, Clock clock,
                       Consumer<Throwable> failJob) {
        this.jobId = jobId;
        this.config = config;
        this.mainThread = mainThread;
        this.clock = clock;
        this.failJob = failJob;
    }

    /** Tells {@code listener} of every failure from now on, and at once since when checkpoints fail. */
    void setMetricsListener(CheckpointMetricsListener listener) {
        mainThread.assertRunningInMainThread();
        this.metricsListener = Objects.requireNonNull(listener, "listener");
        listener.failingSinceChanged(failingSinceMillis);
    }

    /**
     * Checkpoint {@code checkpointId} (-1: before it had an id) failed for {@code reason}: counts,
     * logs and, beyond the tolerance of task-caused failures, fails the job over.
     */
    void failed(long checkpointId, CheckpointFailureReason reason, String message) {
        mainThread.assertRunningInMainThread();
        failed++;
        consecutiveFailures++;
        metricsListener.checkpointFailed();
        if (failingSinceMillis < 0) {
            failingSinceMillis = clock.currentTimeMillis();
            metricsListener.failingSinceChanged(failingSinceMillis);
        }
        lastFailure = "Checkpoint " + (checkpointId >= 0 ? checkpointId + " " : "") + "failed (" + reason.label()
                + "): " + message;
        boolean counts = reason.countsTowardsTolerance();
        if (counts) {
            consecutiveTaskFailures++;
        }
        log(counts);
        if (counts && consecutiveTaskFailures > config.tolerableCheckpointFailures()) {
            consecutiveTaskFailures = 0;
            failJob.accept(new CheckpointException("Exceeded the tolerable number of consecutive checkpoint failures ("
                    + config.tolerableCheckpointFailures() + ") caused by the tasks. Last: " + lastFailure));
        }
    }

    private void log(boolean counts) {
        String consequence = counts
                ? consecutiveTaskFailures + " task-caused failure(s) in a row, " + config.tolerableCheckpointFailures()
                        + " tolerated before the job fails over"
                : "not counted towards the tolerance: the job keeps running and the next checkpoint is tried in "
                        + config.checkpointInterval().toMillis() + " ms";
        if (consecutiveFailures == 1 || consecutiveFailures % WARN_EVERY == 0 || counts) {
            LOG.warn("{} (job {}; {}; failing since {}, {} failure(s) in a row)", lastFailure, jobId, consequence,
                    Instant.ofEpochMilli(failingSinceMillis), consecutiveFailures);
        } else {
            LOG.debug("{} (job {}; {})", lastFailure, jobId, consequence);
        }
    }

    /** A checkpoint completed: the run of failures is over. */
    void succeeded() {
        mainThread.assertRunningInMainThread();
        if (failingSinceMillis >= 0) {
            LOG.info("Checkpoints of job {} succeed again after failing for {} ms ({} failure(s) in a row)", jobId,
                    clock.currentTimeMillis() - failingSinceMillis, consecutiveFailures);
        }
        consecutiveFailures = 0;
        consecutiveTaskFailures = 0;
        if (failingSinceMillis >= 0) {
            failingSinceMillis = -1;
            metricsListener.failingSinceChanged(-1);
        }
    }

    long failedCount() {
        mainThread.assertRunningInMainThread();
        return failed;
    }

    int consecutiveFailures() {
        mainThread.assertRunningInMainThread();
        return consecutiveFailures;
    }

    /** Wall-clock time of the first failure since the last completion, or -1 while checkpoints succeed. */
    long failingSinceMillis() {
        mainThread.assertRunningInMainThread();
        return failingSinceMillis;
    }

    /** The latest failure's message, or {@code null} before the first. */
    String lastFailure() {
        mainThread.assertRunningInMainThread();
        return lastFailure;
    }

    /** Who is told of completions too (the statistics share the coordinator's one listener). */
    CheckpointMetricsListener metricsListener() {
        return metricsListener;
    }
}
