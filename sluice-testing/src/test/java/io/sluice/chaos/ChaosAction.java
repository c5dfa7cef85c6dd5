package io.sluice.chaos;

/** What one step of a {@link ChaosPlan} does. */
enum ChaosAction {
    /** The next record of the job's counting task throws: a task failure and a global failover. */
    TASK_FAILURE(true),
    /** Checkpoint storage refuses every call (connection refused) until healed. */
    STORAGE_REFUSE(false),
    /** Checkpoint storage blocks every call until healed (a hung mount or connection). */
    STORAGE_HANG(false),
    /** Checkpoint storage works again; blocked calls continue. */
    STORAGE_HEAL(false),
    /** The job's leadership is taken away (as if its lease expired) and granted again. */
    REVOKE_LEADERSHIP(true),
    /** The user cancels the job. */
    CANCEL(true);

    private final boolean perJob;

    ChaosAction(boolean perJob) {
        this.perJob = perJob;
    }

    /** Whether the step names a job. */
    boolean perJob() {
        return perJob;
    }
}
