package io.sluice.ha.zookeeper;

import io.sluice.concurrent.BackoffPolicy;
import io.sluice.ha.LeaderContender;
import io.sluice.ha.LeaderElection;
import io.sluice.ha.LeadershipLostException;
import java.time.Duration;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
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
 * <p><b>Threads.</b> Curator delivers latch and connection-state events to the services'
 * notification thread ({@code sluice-zk-election-<cluster-id>}), which also delivers
 * {@code grantLeadership} / {@code revokeLeadership}, in order. That thread <em>never</em> makes a
 * ZooKeeper call: a blocking Curator call retries in the foreground (each attempt may wait the
 * connection timeout), which can outlast the session timeout, and a revocation queued behind it
 * would arrive after a standby was granted. Every ZooKeeper call of this place (verifying the latch
 * node before a grant, closing the latch, deleting nodes) runs on its own {@link SerialExecutor}
 * on the services' ZooKeeper pool, one at a time, and hands its result back to the notification
 * thread, which re-checks that nothing changed meanwhile (same latch, same connection generation,
 * not suspended, not closed) before acting on it.
 *
 * <p><b>Grants.</b> When the latch reports leadership, the election checks (one ZooKeeper read,
 * off the notification thread) that its latch node still exists, records that node as the
 * <em>fence</em> of a fresh session id (a new UUID per grant) and calls {@code grantLeadership}.
 *
 * <p><b>Connection states</b> (the client uses Curator's session error policy, so the latch itself
 * only gives up leadership on LOST): on SUSPENDED, leadership is revoked after
 * {@code high-availability.zookeeper.suspended-tolerance} (at once by default) unless the
 * connection came back meanwhile; on LOST (session expired) it is revoked at once; on RECONNECTED
 * the contender rejoins: if its latch node survived (same session) and is still the lowest, it is
 * granted again under a fresh session id; otherwise the latch recreates its node and the grant
 * follows when it leads.
 *
 * <p><b>Fencing</b> ({@link #runIfLeader}, kept by {@link LeadershipFence}): the session is checked in memory and the write runs
 * with the fence active, so every ZooKeeper write it makes through this module's stores is a
 * transaction that first checks that the latch node recorded at grant still exists (see
 * {@link ZooKeeperHaServices}); a new leader elsewhere can only be granted once this node is gone,
 * which makes the check fail. A revocation does not wait for a write in flight to finish its
 * retries: it clears the session (later writes are refused), interrupts the writing threads (the
 * write fails with {@link LeadershipLostException}) and delivers {@code revokeLeadership} once they
 * have returned, or after {@link #REVOKE_WAIT_FOR_WRITES} at the latest. A write whose transaction
 * had already reached ZooKeeper when it was interrupted may still have been applied — only while
 * the latch node existed, that is before any other contender could be granted.
 *
 * <p>{@link #startLeaderElection} and {@link #close} only enqueue work on the notification thread.
 * {@link #hasLeadership} reads one volatile field. {@code LeaderLatch.close()} is called at most once.
 */
final class ZooKeeperLeaderElection implements LeaderElection {
    private static final Logger LOG = LoggerFactory.getLogger(ZooKeeperLeaderElection.class);
    /** A grant whose latch node could not be verified looks again after this, for as long as it cannot. */
    private static final BackoffPolicy RECHECK = BackoffPolicy.fixed(Duration.ofMillis(100));
    /** How long a revocation waits for interrupted fenced writes to return before it is delivered anyway. */
    static final Duration REVOKE_WAIT_FOR_WRITES = Duration.ofSeconds(2);

    private final ZooKeeperHaServices services;
    private final CuratorFramework client;
    private final String latchPath;
    private final String leadershipName;
    private final String contenderId;
    private final SerialExecutor zooKeeper;
    private final ConnectionStateListener connectionListener = (c, state) -> onConnectionState(state);

    /** The current leadership and the fenced writes under it. */
    private final LeadershipFence fence;

    private volatile boolean closed;
    private volatile LeaderContender contender;
    private boolean started;
    // Notification thread only.
    private LeaderLatch latch;
    private boolean suspended;
    private boolean verifying;
    private long connectionGeneration;

    ZooKeeperLeaderElection(ZooKeeperHaServices services, CuratorFramework client, String latchPath, String leadershipName,
                            String contenderId) {
        this.services = services;
        this.client = client;
        this.latchPath = latchPath;
        this.leadershipName = leadershipName;
        this.contenderId = contenderId;
        this.zooKeeper = services.serialExecutor("election of " + contenderId + " in " + latchPath);
        this.fence = new LeadershipFence(latchPath, this::description, () -> closed);
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
        onNotifier(() -> {
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

    /** Notification thread: starts verifying the latch node (off this thread) if a grant may be due. */
    private void onLatchLeader(LeaderLatch which) {
        if (closed || which != latch || fence.current() != null || suspended || verifying || !which.hasLeadership()) {
            return;
        }
        String node = which.getOurPath();
        if (node == null) {
            return;
        }
        long generation = connectionGeneration;
        verifying = true;
        try {
            zooKeeper.execute(() -> {
                Stat stat = null;
                Exception error = null;
                try {
                    ZooKeeperGuard.check("verify leader node", node);
                    stat = client.checkExists().forPath(node);
                } catch (Exception e) {
                    error = e;
                }
                boolean exists = stat != null;
                Exception failure = error;
                onNotifier(() -> completeGrant(which, node, generation, exists, failure));
            });
        } catch (RejectedExecutionException e) {
            verifying = false; // closed
        }
    }

    /** Notification thread: grants if the verified node is still ours and nothing changed meanwhile. */
    private void completeGrant(LeaderLatch which, String node, long generation, boolean exists, Exception error) {
        verifying = false;
        if (closed || which != latch || fence.current() != null || suspended) {
            return; // a RECONNECTED looks again
        }
        if (generation != connectionGeneration || !node.equals(which.getOurPath())) {
            onLatchLeader(which); // the connection changed while verifying: verify again
            return;
        }
        if (error != null) {
            LOG.warn("{}: could not verify latch node {} ({}); checking again", description(), node, error.toString());
            recheckLater(which);
            return;
        }
        if (!exists) {
            LOG.debug("{}: latch node {} vanished before the grant; checking again", description(), node);
            recheckLater(which);
            return;
        }
        if (!which.hasLeadership()) {
            return;
        }
        UUID session = UUID.randomUUID();
        fence.grant(session, node);
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
            services.notifier().schedule(() -> onLatchLeader(which), RECHECK.initialDelay().toNanos(), TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException e) {
            // closed
        }
    }

    /**
     * Notification thread. Never waits here: clears the session, interrupts fenced writes in flight
     * and delivers the revocation at once, or (if writes were in flight) once they returned, from a
     * task on this place's serial executor that hands the delivery back to this thread.
     */
    private void revoke(String why) {
        LeadershipFence.Revocation revoked = fence.revoke();
        if (revoked == null) {
            return;
        }
        LeadershipFence.Leadership old = revoked.old();
        Set<Thread> inFlight = revoked.inFlight();
        LOG.info("{} no longer leads {} (session {}): {}", description(), latchPath, old.session(), why);
        if (inFlight.isEmpty()) {
            deliverRevocation();
            return;
        }
        LOG.info("{}: interrupted {} fenced write(s) of session {} in flight", description(), inFlight.size(),
                old.session());
        try {
            zooKeeper.execute(() -> {
                fence.awaitWriters(inFlight, REVOKE_WAIT_FOR_WRITES);
                if (!onNotifier(this::deliverRevocation)) {
                    deliverRevocation(); // the services are closing: the notification thread takes no more tasks
                }
            });
        } catch (RejectedExecutionException e) {
            deliverRevocation(); // closing: deliver now
        }
    }

    private void deliverRevocation() {
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
                if (fence.current() == null && l != null && l.hasLeadership()) {
                    onLatchLeader(l);
                }
            }
            default -> { }
        }
    }

    @Override
    public boolean hasLeadership(UUID leaderSessionId) {
        return !closed && fence.hasLeadership(leaderSessionId);
    }

    /** The leader node recorded for {@code leaderSessionId}'s grant, or null (for tests and diagnostics). */
    String leaderNode(UUID leaderSessionId) {
        LeadershipFence.Leadership l = fence.current();
        return l != null && l.session().equals(leaderSessionId) ? l.latchNode() : null;
    }

    @Override
    public void runIfLeader(UUID leaderSessionId, FencedWrite write) throws Exception {
        ZooKeeperGuard.check("fenced write", latchPath);
        fence.runIfLeader(leaderSessionId, write);
    }

    @Override
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        // Not kept by the services after this: the contender (an ended job's runner) must be collectable.
        services.forget(this);
        synchronized (this) {
            if (!started) {
                return;
            }
        }
        onNotifier(() -> {
            client.getConnectionStateListenable().removeListener(connectionListener);
            revoke("the election place was closed");
            LeaderLatch l = latch;
            latch = null;
            if (l == null) {
                return;
            }
            String node = l.getOurPath();
            try {
                zooKeeper.execute(() -> {
                    try {
                        l.close(); // once only: a second close throws
                    } catch (Exception e) {
                        LOG.debug("{}: closing the leader latch failed: {}", description(), e.toString());
                    }
                    removeNodes(node);
                });
            } catch (RejectedExecutionException e) {
                LOG.debug("{}: the ZooKeeper HA services are closed; the latch node goes with the session", description());
            }
        });
    }

    /** Serial executor, after leaving: deletes our latch node now, and the job's latch path if nobody else is in it. */
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

    /** Runs {@code task} on the notification thread; false if the services are closed. */
    private boolean onNotifier(Runnable task) {
        try {
            services.notifier().execute(() -> {
                try {
                    task.run();
                } catch (RuntimeException e) {
                    LOG.error("{}: election task failed", description(), e);
                }
            });
            return true;
        } catch (RejectedExecutionException e) {
            LOG.debug("{}: the ZooKeeper HA services are closed; dropping an election task", description());
            return false;
        }
    }
}
