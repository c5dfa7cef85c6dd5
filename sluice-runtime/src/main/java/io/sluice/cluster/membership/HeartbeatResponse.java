package io.sluice.cluster.membership;

/**
 * A job manager's answer to a task executor's heartbeat. The answer itself is the job manager's
 * heartbeat to the task executor. Serializable (an enum).
 */
public enum HeartbeatResponse {
    /** The registration is current: both sides are alive. */
    ACCEPTED,
    /**
     * The job manager does not know this registration (it declared the task executor lost, it
     * restarted, or it no longer leads): the task executor has lost this job manager and registers again.
     */
    UNKNOWN_REGISTRATION
}
