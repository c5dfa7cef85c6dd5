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
    CANCEL(true),
    /**
     * One byte of a {@code .state} file of the job's newest checkpoint flips (disk corruption), and
     * the job's next record throws, so that the restart most likely restores from that checkpoint
     * and must fall back to an older retained one (a later completed checkpoint may subsume it
     * first; then nothing reads it). At most
     * {@link ChaosPlan#MAX_CORRUPTIONS_PER_JOB} per job and plan, so one retained checkpoint stays intact.
     */
    CORRUPT_STATE_FILE(true);

    private final boolean perJob;

    ChaosAction(boolean perJob) {
        this.perJob = perJob;
    }

    /** Whether the step names a job. */
    boolean perJob() {
        return perJob;
    }
}
