package io.sluice.operators;

/**
 * Where the commits of a two-phase-commit sink subtask stand, for status and metrics. Immutable.
 *
 * @param pendingCommittables     committables pre-committed and not yet committed (waiting for their
 *                                checkpoint to complete, or being committed and retried)
 * @param oldestPendingAgeMillis  how long the oldest of them has waited since its pre-commit; 0 if none
 * @param commitRetries           failed commit attempts since the subtask started (each was retried)
 * @param committed               committables committed since the subtask started
 * @param lastCommitError         the error of the latest failed attempt while it is not yet retried
 *                                successfully, or {@code null}
 */
public record CommitStats(long pendingCommittables, long oldestPendingAgeMillis, long commitRetries, long committed,
                          String lastCommitError) implements java.io.Serializable {
    public static final CommitStats NONE = new CommitStats(0, 0, 0, 0, null);

    /** The sum of two subtasks' stats (the older age, the first error). */
    public CommitStats plus(CommitStats o) {
        return new CommitStats(pendingCommittables + o.pendingCommittables,
                Math.max(oldestPendingAgeMillis, o.oldestPendingAgeMillis), commitRetries + o.commitRetries,
                committed + o.committed, lastCommitError != null ? lastCommitError : o.lastCommitError);
    }
}
