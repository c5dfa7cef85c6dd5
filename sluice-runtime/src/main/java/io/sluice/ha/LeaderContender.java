package io.sluice.ha;

import java.util.UUID;

/**
 * Takes part in a leader election. Callbacks arrive on the election's thread (never a component
 * main thread); implementations hand them to their own main thread and must not block.
 */
public interface LeaderContender {
    /** This contender leads from now on, under {@code leaderSessionId} (a fresh id per grant). */
    void grantLeadership(UUID leaderSessionId);

    /** Leadership is gone. Stop acting as leader at once; writes under the old session are fenced anyway. */
    void revokeLeadership();

    /** For logs, e.g. "job manager runner of job 1a2b... on jm-1". */
    String description();
}
