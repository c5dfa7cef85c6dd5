package io.sluice.ha;

import java.util.UUID;

/**
 * One contender's place in the election for one leadership (a job, or the dispatcher).
 *
 * <p>Threading: {@link #startLeaderElection} and {@link #close} are cheap and non-blocking and may
 * be called from a main thread (implementations do their I/O on their own threads).
 * {@link #hasLeadership} may be called from any thread; implementations answer from memory.
 * {@link #runIfLeader} is the fencing primitive: it runs a blocking HA write only while holding
 * the given session, and must be called from an I/O thread.
 */
public interface LeaderElection extends AutoCloseable {

    void startLeaderElection(LeaderContender contender);

    /** Whether {@code leaderSessionId} is the current, valid leader session of this contender. */
    boolean hasLeadership(UUID leaderSessionId);

    /**
     * Runs {@code write} only if {@code leaderSessionId} still leads, atomically with respect to a
     * revocation (so no write of an old session lands after a new leader took over).
     *
     * @throws LeadershipLostException if the session does not lead (the write did not run)
     */
    void runIfLeader(UUID leaderSessionId, FencedWrite write) throws Exception;

    /** Leaves the election; revokes leadership if held. Idempotent. */
    @Override
    void close();

    /** A blocking write guarded by leadership. */
    @FunctionalInterface
    interface FencedWrite {
        void run() throws Exception;
    }
}
