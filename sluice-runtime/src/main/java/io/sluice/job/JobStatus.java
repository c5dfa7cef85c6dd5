package io.sluice.job;

/**
 * The life of a job.
 *
 * <pre>
 * INITIALIZING -> CREATED -> RUNNING -> FINISHED
 *                               |  ^
 *                               v  |
 *                           RESTARTING          any non-terminal -> CANCELLING -> CANCELED
 *                               |                                -> FAILING    -> FAILED
 *  (leadership lost)  any non-terminal -> SUSPENDED  (not terminal for the cluster: another job manager resumes it)
 * </pre>
 */
public enum JobStatus {
    /** Waiting for leadership, or recovering job graph and checkpoints; answered by the job manager runner. */
    INITIALIZING,
    /** Recovered; tasks not yet deployed. */
    CREATED,
    RUNNING,
    /** Tasks are being cancelled before a restart. */
    RESTARTING,
    /** Tasks are being cancelled before the job fails. */
    FAILING,
    FAILED,
    CANCELLING,
    CANCELED,
    FINISHED,
    /** This job manager lost leadership; the job is not over and another job manager may resume it. */
    SUSPENDED;

    /** Terminal for the whole cluster: the job will never run again. */
    public boolean isGloballyTerminal() {
        return this == FAILED || this == CANCELED || this == FINISHED;
    }

    /** Terminal for this job manager (globally terminal, or suspended). */
    public boolean isTerminal() {
        return isGloballyTerminal() || this == SUSPENDED;
    }
}
