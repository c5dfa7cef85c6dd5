package io.sluice.restart;

import java.time.Duration;

/**
 * Decides whether, and after how long, a failed job is restarted. Stateful: it counts failures.
 *
 * <p>Threading: called only from the JobMaster main thread; implementations are not thread-safe.
 * The JobMaster calls, for each failure, {@link #notifyFailure}, then {@link #canRestart}, and if
 * that is true schedules the restart after {@link #backoff()}; otherwise it fails the job.
 */
public interface RestartStrategy {

    /** Records a failure of the job; reads the clock at this moment. */
    void notifyFailure(Throwable cause);

    /** Whether the job may restart after the failures recorded so far. Once false, stays false. */
    boolean canRestart();

    /**
     * How long to wait before the next restart, as decided at the latest failure.
     *
     * @throws IllegalStateException if {@link #canRestart()} is false
     */
    Duration backoff();

    /** Current state for logs and the UI, for example {@code "fixed delay: attempt 3 of 10, 1 s"}. */
    String describe();
}
