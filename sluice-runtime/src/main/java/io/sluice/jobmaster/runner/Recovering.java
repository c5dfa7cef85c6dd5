package io.sluice.jobmaster.runner;

import io.sluice.concurrent.Futures;
import io.sluice.config.Durations;
import io.sluice.ha.CheckpointRecoveryException;
import io.sluice.jobmaster.RecoveryReads;
import io.sluice.job.JobResult;
import io.sluice.job.JobStatus;
import io.sluice.protocol.JobHealth;
import io.sluice.rpc.Acknowledge;
import io.sluice.rpc.MainThreadExecutor;
import io.sluice.slots.SlotPool;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This job manager leads the job (session {@link #session}) and recovers it: one attempt at a time
 * runs on the I/O executor ({@link CheckpointRecovery}), after a storage error the next one is
 * scheduled with backoff, and while every retained checkpoint is unreadable the job waits on a slow
 * backoff (INITIALIZING, graph and checkpoints kept). Each attempt's callback re-checks that this
 * state (so this session) is still current; a stale one does nothing.
 */
final class Recovering implements RunnerState {
    private static final Logger LOG = LoggerFactory.getLogger(Recovering.class);

    /** The moves out of {@link Recovering}, and the job master it may create. */
    interface Context {
        void goToNotLeading(Recovering from);

        void goToLeading(Recovering from, RunningJobMaster jobMaster);

        void goToEnding(Recovering from, JobResult result, UUID session, String failureMessage);

        void goToEnded(Recovering from, JobResult alreadyFinished);

        boolean isCurrent(RunnerState state);

        /** Takes the slots (fixed pool) and creates, but does not start, the job master of {@code session}. */
        RunningJobMaster createJobMaster(UUID session, Recovered recovered, RecoveryProgress progress)
                throws SlotPool.NotEnoughSlotsException;

        /** Starts one attempt's I/O once a recovery read may start (see {@link RecoveryReads}). */
        RecoveryReads.Reservation startReads(Runnable io);
    }

    private final Context context;
    private final RunnerSupport support;
    private final UUID session;
    private final RecoveryProgress progress;
    private final CheckpointRecovery recovery;
    private int attempt;
    /** The attempt queued for or running its I/O, or null. */
    private RecoveryReads.Reservation inFlight;
    private MainThreadExecutor.ScheduledTask retry;

    Recovering(Context context, RunnerSupport support, UUID session, CheckpointRecovery recovery) {
        this.context = context;
        this.support = support;
        this.session = session;
        this.progress = support.newProgress();
        this.recovery = recovery;
    }

    UUID session() {
        return session;
    }

    @Override
    public void onEnter() {
        LOG.info("{} gained leadership (session {}); recovering", support.description(), session);
        support.history.set(JobStatus.INITIALIZING);
        support.metrics.recoveryStarted();
        startAttempt();
    }

    @Override
    public void onLeave() {
        if (inFlight != null) {
            inFlight.cancel(); // interrupts a storage call that hangs
            inFlight = null;
        }
        if (retry != null) {
            retry.cancel();
            retry = null;
        }
    }

    private void startAttempt() {
        retry = null;
        attempt++;
        support.metrics.recoveryAttempt();
        progress.startAttempt(attempt);
        progress.phase("starting recovery attempt " + attempt);
        CompletableFuture<Recovered> result = new CompletableFuture<>();
        inFlight = context.startReads(() -> {
            try {
                result.complete(recovery.recover(session, progress));
            } catch (Throwable t) {
                result.completeExceptionally(t);
            }
        });
        progress.queuedBehind(inFlight::ahead);
        result.whenCompleteAsync((recovered, error) -> attemptDone(recovered, error), support.mainThread);
    }

    private void attemptDone(Recovered recovered, Throwable error) {
        if (!context.isCurrent(this)) {
            LOG.info("{}: the recovery attempt of session {} ended after that session did; ignored",
                    support.description(), session);
            return;
        }
        inFlight = null;
        if (error != null) {
            attemptFailed(Futures.unwrap(error));
        } else if (recovered.alreadyFinished() != null) {
            LOG.info("{}: the job already ended ({}); it is not run again", support.description(),
                    recovered.alreadyFinished().status());
            context.goToEnded(this, recovered.alreadyFinished());
        } else {
            startJobMaster(recovered);
        }
    }

    private void attemptFailed(Throwable cause) {
        if (cause instanceof InterruptedException || cause instanceof CancellationException) {
            return;
        }
        if (cause instanceof CheckpointRecoveryException) {
            waitForReadableCheckpoints(cause);
        } else if (CheckpointRecovery.isPermanent(cause)) {
            LOG.error("{}: recovery failed permanently", support.description(), cause);
            context.goToEnding(this, failed(cause), session, JobResult.describe(cause));
        } else {
            Duration delay = support.services.recoveryBackoff().delayAfter(attempt, support.services.random());
            String message = CheckpointRecovery.describeStorageError(cause);
            progress.failedAttempt(message, delay.toNanos());
            LOG.warn("{}: recovery attempt {} failed: {}; next attempt in {} ms", support.description(), attempt,
                    message, delay.toMillis());
            scheduleRetry(delay);
        }
    }

    /** Every retained checkpoint is unreadable: keep the job (graph and checkpoints) and wait. */
    private void waitForReadableCheckpoints(Throwable cause) {
        Duration delay = support.services.unusableCheckpointsBackoff().delayAfter(attempt, support.services.random());
        support.recordUnreadableRound(cause);
        String delayText = Durations.describe(delay);
        progress.failedAttempt(cause.getMessage(), delay.toNanos(), "waiting: no retained checkpoint is readable;"
                + " retrying in " + delayText + " (repair the checkpoint files and the job resumes by itself, or"
                + " cancel it and start it again with checkpoints.restore-from=<an intact chk-<n> directory>)");
        LOG.error("{}: recovery attempt {}: {} The job keeps its graph and checkpoints and waits; next attempt in {}",
                support.description(), attempt, cause.getMessage(), delayText);
        scheduleRetry(delay);
    }

    private void scheduleRetry(Duration delay) {
        retry = support.mainThread.schedule(() -> {
            if (context.isCurrent(this)) {
                startAttempt();
            }
        }, delay);
    }

    private void startJobMaster(Recovered recovered) {
        support.metrics.recoveryFinished();
        RunningJobMaster jm;
        try {
            jm = context.createJobMaster(session, recovered, progress);
        } catch (SlotPool.NotEnoughSlotsException e) {
            context.goToEnding(this, failed(e), session, e.getMessage());
            return;
        }
        context.goToLeading(this, jm);
    }

    private JobResult failed(Throwable cause) {
        return JobResult.of(support.jobGraph.jobId(), support.jobGraph.name(), JobStatus.FAILED,
                support.services.clock().currentTimeMillis(), cause);
    }

    @Override
    public CompletableFuture<Void> grant(UUID s) {
        if (!s.equals(session)) {
            LOG.warn("{}: grant of session {} while recovering under {}; ignored (the chain revokes first)",
                    support.description(), s, session);
        }
        return CompletableFuture.completedFuture(null);
    }

    @Override
    public CompletableFuture<Void> revoke() {
        LOG.info("{} lost leadership (session {}) while recovering", support.description(), session);
        support.metrics.recoveryAbandoned();
        context.goToNotLeading(this);
        return CompletableFuture.completedFuture(null);
    }

    @Override
    public CompletableFuture<Acknowledge> cancel() {
        LOG.info("{}: cancelled while {}", support.description(), progress.snapshot().phase());
        JobResult result = JobResult.of(support.jobGraph.jobId(), support.jobGraph.name(), JobStatus.CANCELED,
                support.services.clock().currentTimeMillis(), null);
        context.goToEnding(this, result, session, null);
        return CompletableFuture.completedFuture(Acknowledge.INSTANCE);
    }

    @Override
    public StatusView view() {
        return support.initializingView(support.history.status(), null, progress);
    }

    @Override
    public JobHealth health() {
        return support.recoveryHealth();
    }

    @Override
    public void jobMasterEnded(RunningJobMaster jm, JobResult result) {
        LOG.warn("{}: a job master ended ({}) while recovering; ignored", support.description(), result.status());
    }
}
