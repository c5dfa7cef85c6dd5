package io.sluice.jobmaster.runner;

import io.sluice.job.JobResult;
import io.sluice.protocol.JobHealth;
import io.sluice.rpc.Acknowledge;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;

/**
 * One state of a {@link JobManagerRunner}'s leadership lifecycle. Each state is a small class that
 * holds only what that state needs and reaches the runner through its own {@code Context}, which
 * lists the transitions it may make; the runner's one transition method logs {@code from -> to}
 * and refuses an illegal, stale or re-entrant transition.
 *
 * <pre>
 *   NotLeading --grant--> Recovering --recovered--> Leading --revoke--> Suspending --ended--> NotLeading
 *        ^                  |  |  \--revoke------------------------------------------------^
 *        |                  |  \--already ended--> Ended
 *        |                  \--cancel, permanent error--> Ending --recorded--> Ended
 *   Leading --job ended--> Ending;  Leading --suspended itself--> Recovering / NotLeading
 *   any state --close--> Closed
 * </pre>
 *
 * <p>Threading: every method runs on the runner's main thread. Events are delivered only to the
 * current state; a callback of a state that is no longer current is ignored (and logged).
 */
sealed interface RunnerState permits NotLeading, Recovering, Leading, Suspending, Ending, Ended, Closed {

    /** The state's name in logs ({@code NotLeading -> Recovering}). */
    default String name() {
        return getClass().getSimpleName();
    }

    /** Called by the runner right after this state became current. Must not transition. */
    default void onEnter() {
    }

    /** Called by the runner right before another state becomes current: cancel timers and I/O. */
    default void onLeave() {
    }

    /** Leadership granted with session {@code s} (an operation of the leadership chain). */
    CompletableFuture<Void> grant(UUID s);

    /** Leadership revoked (an operation of the chain); completes once its effect is done. */
    CompletableFuture<Void> revoke();

    /**
     * A grant arrived while this state's revoke operation is still in progress on the chain (the
     * grant waits). Only a suspending job master cares: it shows the waiting new leadership.
     */
    default void grantWaiting(UUID s) {
    }

    CompletableFuture<Acknowledge> cancel();

    /** A savepoint (then a stop, with {@code stop}); only a job master takes one: refused in every other state. */
    default CompletableFuture<io.sluice.checkpoint.Savepoint> triggerSavepoint(String targetDirectory, boolean stop) {
        return CompletableFuture.failedFuture(new IllegalStateException("The job is " + name().toLowerCase(
                java.util.Locale.ROOT) + " (not running under a job master): a savepoint is taken only of a running"
                + " job; try again once it runs"));
    }

    /**
     * What status calls show in this state, as of now (the runner publishes it after every change;
     * see {@link StatusView}). Main thread.
     */
    StatusView view();

    /** For the job list, from memory. */
    JobHealth health();

    /** The job master {@code jm} ended with {@code result} (SUSPENDED, or the job's end). */
    void jobMasterEnded(RunningJobMaster jm, JobResult result);

    /** Job manager shutdown: stop what this state started (the runner then goes to {@link Closed}). */
    default void close() {
    }
}
