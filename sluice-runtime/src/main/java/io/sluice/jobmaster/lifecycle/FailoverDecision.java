package io.sluice.jobmaster.lifecycle;

/** What a running job does after a failure (decided by the job master's failover policy). */
public enum FailoverDecision {
    /**
     * Cancel the tasks and deploy again (after the restart strategy's backoff, or falling back past
     * an unusable checkpoint).
     */
    RESTART,
    /** Cancel the tasks and fail the job: the restart strategy gives up, or the error cannot be fixed by restarting. */
    FAIL
}
