package io.sluice.jobmaster;

import io.sluice.api.errors.UnrecoverableJobException;
import io.sluice.checkpoint.CheckpointException;
import io.sluice.checkpoint.StateRestoreException;
import io.sluice.checkpoint.coordinator.CheckpointCoordinator;
import io.sluice.graph.JobGraph;
import io.sluice.job.JobResult;
import io.sluice.jobmaster.lifecycle.FailoverDecision;
import io.sluice.jobmaster.lifecycle.TaskFailure;
import io.sluice.restart.RestartStrategy;
import io.sluice.rpc.MainThreadExecutor;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decides what a running job does after a failure, and records it. Failover is global: every task
 * is cancelled, and the job is either deployed again or fails.
 *
 * <ul>
 *   <li>A task that finds the state of the checkpoint its round restores from unusable (a corrupt
 *       state file, {@link StateRestoreException}) makes the job restart from the previous retained
 *       checkpoint ({@link RestoreFallback}), outside the restart strategy's budget.</li>
 *   <li>An error that restarting cannot fix ({@link UnrecoverableJobException}) fails the job at
 *       once, without spending a restart.</li>
 *   <li>Any other failure asks the {@link RestartStrategy}: restart after its backoff, or fail.</li>
 * </ul>
 *
 * <p>Every failure goes to the {@link JobHealthMonitor} (crash loops), aborts the pending checkpoint
 * without counting it as failed, and is recorded in {@link JobFailures}. The backoff before the
 * next deployment ({@link #restartDelay()}) is zero for a fallback, and at least the crash-loop
 * floor for a restore that can never succeed.
 *
 * <p>Threading: the job master's main thread only; every method checks it.
 */
final class FailoverPolicy {
    private static final Logger LOG = LoggerFactory.getLogger(FailoverPolicy.class);

    private final JobGraph jobGraph;
    private final RestartStrategy restartStrategy;
    private final JobHealthMonitor healthMonitor;
    private final RestoreFallback restoreFallback;
    private final CheckpointCoordinator checkpoints;
    private final JobFailures failures;
    private final MainThreadExecutor mainThread;

    FailoverPolicy(JobGraph jobGraph, RestartStrategy restartStrategy, JobHealthMonitor healthMonitor,
                   RestoreFallback restoreFallback, CheckpointCoordinator checkpoints, JobFailures failures,
                   MainThreadExecutor mainThread) {
        this.jobGraph = jobGraph;
        this.restartStrategy = restartStrategy;
        this.healthMonitor = healthMonitor;
        this.restoreFallback = restoreFallback;
        this.checkpoints = checkpoints;
        this.failures = failures;
        this.mainThread = mainThread;
    }

    /** What the job does after {@code failure}, in a round that restores from {@code restoreCheckpointId} (or -1). */
    FailoverDecision onFailure(TaskFailure failure, long restoreCheckpointId) {
        mainThread.assertRunningInMainThread();
        Throwable cause = failure.cause();
        StateRestoreException unusable = StateRestoreException.find(cause);
        if (unusable != null && unusable.checkpointId() == restoreCheckpointId) {
            fallBackFrom(unusable);
            return FailoverDecision.RESTART;
        }
        failures.setLastFailure(cause);
        healthMonitor.taskFailed(cause, failure.vertexName(), failure.restoringFrom(), failure.transientCause());
        checkpoints.abortPendingOnFailover();
        boolean unrecoverable = UnrecoverableJobException.isCauseOf(cause);
        boolean restart = !unrecoverable && restartAllowed(cause);
        failures.recordEvent(cause, restart);
        if (unrecoverable) {
            LOG.warn("Job {} ({}) fails without a restart: its error cannot be fixed by restarting ({}); fix the job"
                    + " and submit it again", jobGraph.jobId(), jobGraph.name(), JobResult.describe(cause), cause);
            return FailoverDecision.FAIL;
        }
        if (restart) {
            LOG.info("Job {} ({}) restarts after task failure ({}): {}", jobGraph.jobId(), jobGraph.name(),
                    restartStrategy.describe(), JobResult.describe(cause));
            failures.restarting(cause);
            return FailoverDecision.RESTART;
        }
        LOG.warn("Job {} ({}) fails: the restart strategy ({}) gives up", jobGraph.jobId(), jobGraph.name(),
                restartStrategy.describe(), cause);
        return FailoverDecision.FAIL;
    }

    /**
     * The state of the checkpoint this round restores from is unusable (a corrupt state file):
     * restart from the previous retained checkpoint. This is not a failure of the job's tasks and
     * does not use the restart budget; it happens at most once per retained checkpoint and round,
     * since each fallback goes to an older one; when none is left the job waits for repaired files.
     */
    private void fallBackFrom(StateRestoreException unusable) {
        LOG.warn("Job {} ({}): checkpoint {} is unusable, falling back to the previous retained checkpoint: {}",
                jobGraph.jobId(), jobGraph.name(), unusable.checkpointId(), unusable.getMessage());
        failures.setLastFailure(new CheckpointException("Checkpoint " + unusable.checkpointId() + " is unusable: "
                + unusable.getMessage() + "; falling back to the previous retained checkpoint"));
        checkpoints.abortPendingOnFailover();
        restoreFallback.start(unusable);
        failures.fallingBack();
    }

    /** Records the failure with the restart strategy; whether it allows a restart. */
    private boolean restartAllowed(Throwable cause) {
        restartStrategy.notifyFailure(cause);
        return restartStrategy.canRestart();
    }

    /**
     * How long to wait, once every task of the failed round has ended, before deploying again: at
     * once for a fallback past an unusable checkpoint (not a failure the restart strategy paces),
     * else the strategy's backoff, or slower while a restore can never succeed.
     */
    Duration restartDelay() {
        mainThread.assertRunningInMainThread();
        return restoreFallback.inProgress() ? Duration.ZERO : healthMonitor.restartDelay(restartStrategy.backoff());
    }
}
