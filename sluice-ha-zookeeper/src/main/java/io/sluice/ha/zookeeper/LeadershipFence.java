package io.sluice.ha.zookeeper;

import io.sluice.ha.LeaderElection.FencedWrite;
import io.sluice.ha.LeadershipLostException;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The current leadership of one {@link ZooKeeperLeaderElection} (its session id and the latch node
 * recorded at grant) and the fenced writes made under it: a write runs only while its session is
 * current, as a ZooKeeper transaction that first checks the latch node
 * ({@link ZooKeeperHaServices#runFenced}). A revocation clears the leadership at once and interrupts
 * the writes in flight, which then fail with {@link LeadershipLostException}; {@link #awaitWriters}
 * waits (bounded) until they have returned.
 *
 * <p>Threading: thread-safe (guarded by its own lock; the leadership is also read without it).
 * {@link #grant} and {@link #revoke} are called on the election's notification thread,
 * {@link #runIfLeader} on the writers' threads, {@link #awaitWriters} on the election's serial
 * executor.
 */
final class LeadershipFence {
    private static final Logger LOG = LoggerFactory.getLogger(LeadershipFence.class);

    /** One grant: a fresh session id and the latch node that fences its writes. */
    record Leadership(UUID session, String latchNode) {}

    /** A revoked leadership and the writer threads that were interrupted in its writes. */
    record Revocation(Leadership old, Set<Thread> inFlight) {}

    private final String latchPath;
    private final Supplier<String> description;
    /** Whether the election was closed: then every write is refused. */
    private final BooleanSupplier closed;
    // Guarded by lock (current is also read without it).
    private final Object lock = new Object();
    private final Set<Thread> writers = new HashSet<>();
    private final Set<Thread> interruptedWriters = new HashSet<>();
    private volatile Leadership current;

    LeadershipFence(String latchPath, Supplier<String> description, BooleanSupplier closed) {
        this.latchPath = latchPath;
        this.description = description;
        this.closed = closed;
    }

    /** The current leadership, or {@code null}. Any thread; reads one volatile field. */
    Leadership current() {
        return current;
    }

    /** Records {@code session}'s grant, fenced by {@code latchNode}. */
    void grant(UUID session, String latchNode) {
        synchronized (lock) {
            current = new Leadership(session, latchNode);
        }
    }

    /**
     * Clears the leadership (later writes are refused) and interrupts the writes in flight; what was
     * revoked, or {@code null} if there was no leadership.
     */
    Revocation revoke() {
        synchronized (lock) {
            Leadership old = current;
            if (old == null) {
                return null;
            }
            current = null;
            Set<Thread> inFlight = Set.copyOf(writers);
            for (Thread writer : inFlight) {
                interruptedWriters.add(writer);
                writer.interrupt();
            }
            return new Revocation(old, inFlight);
        }
    }

    /** Waits up to {@code max} until the interrupted writers {@code inFlight} have left {@link #runIfLeader}. */
    void awaitWriters(Set<Thread> inFlight, Duration max) {
        long deadline = System.nanoTime() + max.toNanos();
        synchronized (lock) {
            while (inFlight.stream().anyMatch(writers::contains)) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    LOG.warn("{}: a fenced write of the revoked session did not return within {} of its interruption;"
                            + " delivering the revocation anyway (ZooKeeper rejects its transaction once the latch node"
                            + " is gone)", description.get(), ZooKeeperHaServices.describe(max));
                    return;
                }
                try {
                    TimeUnit.NANOSECONDS.timedWait(lock, left);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }

    /** Whether {@code leaderSessionId} is the current leadership's session. Any thread. */
    boolean hasLeadership(UUID leaderSessionId) {
        Leadership l = current;
        return l != null && l.session().equals(leaderSessionId);
    }

    /**
     * Runs {@code write} fenced by the latch node of {@code leaderSessionId}'s grant; refused if that
     * session is not current or the election is closed, and failed with {@link LeadershipLostException} if
     * a revocation interrupted it.
     */
    void runIfLeader(UUID leaderSessionId, FencedWrite write) throws Exception {
        Thread me = Thread.currentThread();
        Leadership l;
        synchronized (lock) {
            l = current;
            if (closed.getAsBoolean() || l == null || !l.session().equals(leaderSessionId)) {
                throw new LeadershipLostException(description.get() + " no longer leads " + latchPath + " (session "
                        + leaderSessionId + "); the write was not performed");
            }
            writers.add(me);
        }
        Throwable failure = null;
        try {
            ZooKeeperHaServices.runFenced(new ZooKeeperHaServices.Fence(l.latchNode(),
                    description.get() + " (session " + leaderSessionId + ")"), write);
        } catch (Throwable t) {
            failure = t;
        }
        boolean revokedMeanwhile;
        synchronized (lock) {
            writers.remove(me);
            revokedMeanwhile = interruptedWriters.remove(me);
            lock.notifyAll();
        }
        if (revokedMeanwhile) {
            Thread.interrupted(); // the interrupt was the revocation's, not the caller's
        }
        if (failure == null) {
            return;
        }
        if (revokedMeanwhile && !(failure instanceof LeadershipLostException)) {
            LeadershipLostException lost = new LeadershipLostException(description.get() + " lost leadership of "
                    + latchPath + " (session " + leaderSessionId + ") while a write was in flight; the write was"
                    + " interrupted (" + failure + ")");
            lost.initCause(failure);
            throw lost;
        }
        if (failure instanceof Exception e) {
            throw e;
        }
        throw (Error) failure;
    }
}
