package io.sluice.ha.zookeeper;

import io.sluice.ha.LeaderContender;
import io.sluice.ha.LeaderElection;
import io.sluice.ha.LeadershipLostException;
import java.time.Duration;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.leader.LeaderLatch;
import org.apache.curator.framework.recipes.leader.LeaderLatchListener;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.framework.state.ConnectionStateListener;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One contender's place in a leader election on ZooKeeper (a job's, or the dispatcher's): a Curator
 * {@link LeaderLatch} on {@code <base>/leaders/job-<jobId>} (or {@code <base>/leaders/dispatcher})
 * with the contender id as participant id (stored as the latch node's data, which is what
 * {@link ZooKeeperLeaderRetrieval} reads), on the contender's own ZooKeeper session.
 *
 * <p><b>Grants.</b> When the latch reports leadership, the election checks (one ZooKeeper read)
 * that its latch node still exists, records that node as the <em>fence</em> of a fresh session id
 * (a new UUID per grant) and calls {@code grantLeadership}. All callbacks run on the services'
 * dedicated notification thread, in order; never on a caller's or a main thread.
 *
 * <p><b>Connection states</b> (the client uses Curator's session error policy, so the latch itself
 * only gives up leadership on LOST): on SUSPENDED, leadership is revoked after
 * {@code high-availability.zookeeper.suspended-tolerance} (at once by default) unless the
 * connection came back meanwhile; on LOST (session expired) it is revoked at once; on RECONNECTED
 * the contender rejoins: if its latch node survived (same session) and is still the lowest, it is
 * granted again under a fresh session id; otherwise the latch recreates its node and the grant
 * follows when it leads.
 *
 * <p><b>Fencing</b> ({@link #runIfLeader}): under the fence lock, the session is checked in memory
 * and the write runs with the fence active, so every ZooKeeper write it makes through this
 * module's stores is a transaction that first checks that the latch node recorded at grant still
 * exists (see {@link ZooKeeperHaServices}). A revocation takes the fence lock before it is
 * delivered, so it waits for a write in flight and no write of the old session starts afterwards;
 * a new leader elsewhere can only be granted once this node is gone, which makes the check fail.
 *
 * <p>{@link #startLeaderElection} and {@link #close} only enqueue work on the notification thread.
 * {@link #hasLeadership} reads one volatile field. {@code LeaderLatch.close()} is called at most once.
 */
final class ZooKeeperLeaderElection implements LeaderElection {
    private static final Logger LOG = LoggerFactory.getLogger(ZooKeeperLeaderElection.class);

    private final ZooKeeperHaServices services;
    private final CuratorFramework client;
    private final String latchPath;
    private final String leadershipName;
    private final String contenderId;
    private final ReentrantLock fenceLock = new ReentrantLock();
    private final ConnectionStateListener connectionListener = (c, state) -> onConnectionState(state);

    private volatile Leadership current;
    private volatile boolean closed;
    private volatile LeaderContender contender;
    private boolean started;
    // Notification thread only.
    private LeaderLatch latch;
    private boolean suspended;
    private long connectionGeneration;

    private record Leadership(UUID session, String latchNode) {}

    ZooKeeperLeaderElection(ZooKeeperHaServices services, CuratorFramework client, String latchPath, String leadershipName,
                            String contenderId) {
        this.services = services;
        this.client = client;
        this.latchPath = latchPath;
        this.leadershipName = leadershipName;
        this.contenderId = contenderId;
    }

    private String description() {
        LeaderContender c = contender;
        return c != null ? c.description() : "contender " + contenderId + " of " + leadershipName;
    }

    @Override
    public void startLeaderElection(LeaderContender leaderContender) {
        Objects.requireNonNull(leaderContender, "contender");
        synchronized (this) {
            if (started || closed) {
                throw new IllegalStateException("The election place of " + contenderId + " in " + latchPath
                        + " was already started or closed; create a new one from the HA services");
            }
            started = true;
            contender = leaderContender;
        }
        enqueue(() -> {
            if (closed) {
                return;
            }
            client.getConnectionStateListenable().addListener(connectionListener, services.notifier());
            latch = new LeaderLatch(client, latchPath, contenderId, LeaderLatch.CloseMode.SILENT);
            LeaderLatch mine = latch;
            mine.addListener(new LeaderLatchListener() {
                @Override
                public void isLeader() {
                    onLatchLeader(mine);
                }

                @Override
                public void notLeader() {
                    if (mine == latch) {
                        revoke("the leader latch lost leadership");
                    }
                }
            }, services.notifier());
            try {
                mine.start(); // non-blocking: Curator creates the node once connected, in the background
            } catch (Exception e) {
                LOG.error("{} could not join the election at {}", description(), latchPath, e);
            }
        });
    }

    /** Notification thread. */
    private void onLatchLeader(LeaderLatch which) {
        if (closed || which != latch || current != null || suspended || !which.hasLeadership()) {
            return;
        }
        String node = which.getOurPath();
        if (node == null) {
            return;
        }
        try {
            ZooKeeperGuard.check("verify leader node", node);
            Stat stat = client.checkExists().forPath(node);
            if (stat == null) {
                LOG.debug("{}: latch node {} vanished before the grant; checking again", description(), node);
                recheckLater(which);
                return;
            }
        } catch (Exception e) {
            LOG.warn("{}: could not verify latch node {} ({}); checking again", description(), node, e.toString());
            recheckLater(which);
            return;
        }
        if (closed || which != latch || !which.hasLeadership()) {
            return;
        }
        UUID session = UUID.randomUUID();
        current = new Leadership(session, node);
        LOG.info("{} leads {} (session {}, leader node {})", description(), latchPath, session, node);
        try {
            contender.grantLeadership(session);
        } catch (RuntimeException e) {
            LOG.error("{} failed in grantLeadership", description(), e);
        }
    }

    /** Looks at the latch again shortly (a grant must not depend on one more latch event arriving). */
    private void recheckLater(LeaderLatch which) {
        try {
            services.notifier().schedule(() -> onLatchLeader(which), 100, TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.RejectedExecutionException e) {
            // closed
        }
    }

    /** Notification thread. */
    private void revoke(String why) {
        if (current == null) {
            return;
        }
        fenceLock.lock(); // waits for a fenced write in flight
        try {
            if (current == null) {
                return;
            }
            LOG.info("{} no longer leads {} (session {}): {}", description(), latchPath, current.session(), why);
            current = null;
        } finally {
            fenceLock.unlock();
        }
        try {
            contender.revokeLeadership();
        } catch (RuntimeException e) {
            LOG.error("{} failed in revokeLeadership", description(), e);
        }
    }

    /** Notification thread. */
    private void onConnectionState(ConnectionState state) {
        if (closed) {
            return;
        }
        switch (state) {
            case SUSPENDED -> {
                suspended = true;
                long generation = ++connectionGeneration;
                Duration tolerance = services.suspendedTolerance();
                if (tolerance.isZero()) {
                    revoke("the ZooKeeper connection is suspended");
                } else {
                    services.notifier().schedule(() -> {
                        if (suspended && connectionGeneration == generation && !closed) {
                            revoke("the ZooKeeper connection was suspended for longer than "
                                    + ZooKeeperHaServices.describe(tolerance));
                        }
                    }, tolerance.toMillis(), TimeUnit.MILLISECONDS);
                }
            }
            case LOST -> {
                suspended = true;
                connectionGeneration++;
                revoke("the ZooKeeper session was lost");
            }
            case CONNECTED, RECONNECTED -> {
                suspended = false;
                connectionGeneration++;
                // Rejoin: if the latch still leads with a surviving node, grant again under a fresh session id.
                LeaderLatch l = latch;
                if (current == null && l != null && l.hasLeadership()) {
                    onLatchLeader(l);
                }
            }
            default -> { }
        }
    }

    @Override
    public boolean hasLeadership(UUID leaderSessionId) {
        Leadership l = current;
        return !closed && l != null && l.session().equals(leaderSessionId);
    }

    /** The leader node recorded for {@code leaderSessionId}'s grant, or null (for tests and diagnostics). */
    String leaderNode(UUID leaderSessionId) {
        Leadership l = current;
        return l != null && l.session().equals(leaderSessionId) ? l.latchNode() : null;
    }

    @Override
    public void runIfLeader(UUID leaderSessionId, FencedWrite write) throws Exception {
        ZooKeeperGuard.check("fenced write", latchPath);
        fenceLock.lockInterruptibly();
        try {
            Leadership l = current;
            if (closed || l == null || !l.session().equals(leaderSessionId)) {
                throw new LeadershipLostException(description() + " no longer leads " + latchPath + " (session "
                        + leaderSessionId + "); the write was not performed");
            }
            ZooKeeperHaServices.runFenced(new ZooKeeperHaServices.Fence(l.latchNode(),
                    description() + " (session " + leaderSessionId + ")"), write);
        } finally {
            fenceLock.unlock();
        }
    }

    @Override
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            if (!started) {
                return;
            }
        }
        enqueue(() -> {
            client.getConnectionStateListenable().removeListener(connectionListener);
            if (current != null) {
                fenceLock.lock();
                try {
                    current = null;
                } finally {
                    fenceLock.unlock();
                }
                try {
                    contender.revokeLeadership();
                } catch (RuntimeException e) {
                    LOG.error("{} failed in revokeLeadership", description(), e);
                }
            }
            LeaderLatch l = latch;
            latch = null;
            if (l == null) {
                return;
            }
            String node = l.getOurPath();
            try {
                l.close(); // once only: a second close throws
            } catch (Exception e) {
                LOG.debug("{}: closing the leader latch failed: {}", description(), e.toString());
            }
            removeNodes(node);
        });
    }

    /** After leaving: deletes our latch node now, and the job's latch path if nobody else is in it. */
    private void removeNodes(String node) {
        try {
            if (node != null) {
                ZooKeeperGuard.check("delete", node);
                client.delete().forPath(node);
            }
        } catch (KeeperException.NoNodeException e) {
            // already gone
        } catch (Exception e) {
            LOG.debug("{}: could not delete latch node {}: {}", description(), node, e.toString());
            return;
        }
        try {
            ZooKeeperGuard.check("delete", latchPath);
            client.delete().forPath(latchPath);
        } catch (KeeperException.NoNodeException | KeeperException.NotEmptyException e) {
            // gone, or other contenders are still in the election
        } catch (Exception e) {
            LOG.debug("{}: could not delete {}: {}", description(), latchPath, e.toString());
        }
    }

    private void enqueue(Runnable task) {
        try {
            services.notifier().execute(() -> {
                try {
                    task.run();
                } catch (RuntimeException e) {
                    LOG.error("{}: election task failed", description(), e);
                }
            });
        } catch (RejectedExecutionException e) {
            LOG.debug("{}: the ZooKeeper HA services are closed; dropping an election task", description());
        }
    }
}
