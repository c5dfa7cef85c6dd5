package io.sluice.testutil;

import io.sluice.ha.LeaderContender;
import io.sluice.ha.LeaderElection;
import io.sluice.ha.LeadershipLostException;
import java.util.UUID;

/**
 * A {@link LeaderElection} driven by the test: {@link #grant()} and {@link #revoke()} call the
 * contender on the test's thread (a contender hands them to its main thread, so the test then
 * triggers that). {@link #runIfLeader} runs the write only while the given session is the current
 * one, else throws {@link LeadershipLostException}, as a real election fences. Thread-safe.
 */
public final class TestingLeaderElection implements LeaderElection {
    private final String name;
    private LeaderContender contender;
    private UUID current;
    private boolean closed;
    private int starts;

    public TestingLeaderElection(String name) {
        this.name = name;
    }

    @Override
    public synchronized void startLeaderElection(LeaderContender leaderContender) {
        this.contender = leaderContender;
        starts++;
    }

    /** Grants a fresh session to the contender and returns it. */
    public UUID grant() {
        UUID s = UUID.randomUUID();
        LeaderContender c;
        synchronized (this) {
            if (contender == null) {
                throw new IllegalStateException("No contender joined " + name);
            }
            current = s;
            c = contender;
        }
        c.grantLeadership(s);
        return s;
    }

    /** Revokes the current session (writes under it are refused from now on). */
    public void revoke() {
        LeaderContender c;
        synchronized (this) {
            current = null;
            c = contender;
        }
        if (c != null) {
            c.revokeLeadership();
        }
    }

    @Override
    public synchronized boolean hasLeadership(UUID leaderSessionId) {
        return leaderSessionId != null && leaderSessionId.equals(current);
    }

    @Override
    public void runIfLeader(UUID leaderSessionId, FencedWrite write) throws Exception {
        synchronized (this) {
            if (!hasLeadership(leaderSessionId)) {
                throw new LeadershipLostException(name + ": session " + leaderSessionId + " does not lead");
            }
            write.run();
        }
    }

    @Override
    public synchronized void close() {
        closed = true;
        current = null;
    }

    public synchronized boolean isClosed() {
        return closed;
    }

    /** How often a contender joined (started) this election. */
    public synchronized int starts() {
        return starts;
    }

    public synchronized boolean hasContender() {
        return contender != null;
    }
}
