package io.sluice.ha.memory;

import io.sluice.checkpoint.CheckpointIdCounter;
import io.sluice.checkpoint.CheckpointStorage;
import io.sluice.checkpoint.CompletedCheckpointStore;
import io.sluice.checkpoint.InMemoryCheckpointIdCounter;
import io.sluice.checkpoint.StandaloneCompletedCheckpointStore;
import io.sluice.concurrent.DaemonThreadFactory;
import io.sluice.graph.JobGraph;
import io.sluice.graph.JobId;
import io.sluice.ha.CheckpointRecoveryFactory;
import io.sluice.ha.HighAvailabilityServices;
import io.sluice.ha.JobAlreadySubmittedException;
import io.sluice.ha.JobGraphStore;
import io.sluice.ha.JobResultStore;
import io.sluice.ha.LeaderContender;
import io.sluice.ha.LeaderElection;
import io.sluice.ha.LeaderRetrieval;
import io.sluice.ha.LeadershipLostException;
import io.sluice.ha.RecoveryListener;
import io.sluice.job.JobResult;
import io.sluice.rpc.MainThreads;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Consumer;

/**
 * High-availability services that keep everything in memory: nothing survives the JVM. For tests
 * and for jobs that need no recovery across restarts ({@code high-availability.type: none}).
 * Leadership is granted at once to the only contender of each job. The dispatcher election is a
 * queue: the first contender to start leads; when it leaves, the next one in start order leads
 * under a fresh session. Its grants, revocations and leader-retrieval notifications run on one
 * daemon thread of these services ({@code sluice-ha-memory}), in order; {@link LeaderRetrieval#currentLeader}
 * answers from memory. A job graph put is conditional ({@code putIfAbsent}): a duplicate job id is
 * rejected. Thread-safe.
 */
public final class InMemoryHaServices implements HighAvailabilityServices {
    private final Map<JobId, JobGraph> graphs = new ConcurrentHashMap<>();
    private final Map<JobId, JobResult> results = new ConcurrentHashMap<>();
    private final io.sluice.jar.InMemoryJobJarStore jobJars = new io.sluice.jar.InMemoryJobJarStore();
    private final InMemorySavepointStore savepoints = new InMemorySavepointStore();
    private final ExecutorService notifier = Executors.newSingleThreadExecutor(DaemonThreadFactory.named("sluice-ha-memory"));
    // Guarded by dispatcherLock.
    private final Object dispatcherLock = new Object();
    private final Deque<QueuedLeaderElection> dispatcherContenders = new ArrayDeque<>();
    private volatile QueuedLeaderElection dispatcherLeader;
    private final List<Consumer<Optional<String>>> dispatcherListeners = new CopyOnWriteArrayList<>();
    private final LeaderRetrieval dispatcherRetrieval = new LeaderRetrieval() {
        @Override
        public Optional<String> currentLeader() {
            QueuedLeaderElection leader = dispatcherLeader;
            return leader == null ? Optional.empty() : Optional.of(leader.contenderId);
        }

        @Override
        public void addListener(Consumer<Optional<String>> listener) {
            dispatcherListeners.add(listener);
            callback(() -> listener.accept(currentLeader()));
        }

        @Override
        public void removeListener(Consumer<Optional<String>> listener) {
            dispatcherListeners.remove(listener);
        }
    };

    @Override
    public LeaderElection jobLeaderElection(JobId jobId, String contenderId) {
        return new ImmediateLeaderElection();
    }

    @Override
    public LeaderElection dispatcherLeaderElection(String contenderId) {
        return new QueuedLeaderElection(contenderId);
    }

    @Override
    public LeaderRetrieval dispatcherLeaderRetrieval() {
        return dispatcherRetrieval;
    }

    private void callback(Runnable task) {
        try {
            notifier.execute(() -> {
                try {
                    task.run();
                } catch (RuntimeException e) {
                    org.slf4j.LoggerFactory.getLogger(InMemoryHaServices.class).error("HA callback failed", e);
                }
            });
        } catch (RejectedExecutionException e) {
            // closed
        }
    }

    /** Under dispatcherLock: grants the first waiting contender if nobody leads. */
    private void grantNextDispatcher() {
        if (dispatcherLeader != null) {
            return;
        }
        QueuedLeaderElection next = dispatcherContenders.pollFirst();
        if (next == null) {
            return;
        }
        UUID session = UUID.randomUUID();
        next.session = session;
        dispatcherLeader = next;
        LeaderContender contender = next.contender;
        callback(() -> contender.grantLeadership(session));
        publishDispatcherLeader(Optional.of(next.contenderId));
    }

    private void publishDispatcherLeader(Optional<String> leader) {
        for (Consumer<Optional<String>> l : dispatcherListeners) {
            callback(() -> l.accept(leader));
        }
    }

    @Override
    public JobGraphStore jobGraphStore() {
        return new JobGraphStore() {
            @Override
            public void putJobGraph(JobGraph jobGraph) throws JobAlreadySubmittedException {
                MainThreads.checkNotMainThread("job graph store put " + jobGraph.jobId());
                if (graphs.putIfAbsent(jobGraph.jobId(), jobGraph) != null) {
                    throw new JobAlreadySubmittedException(jobGraph.jobId(), "the in-memory job graph store");
                }
            }

            @Override
            public Collection<JobId> jobIds() {
                MainThreads.checkNotMainThread("job graph store list");
                return List.copyOf(graphs.keySet());
            }

            @Override
            public JobGraph recoverJobGraph(JobId jobId) {
                MainThreads.checkNotMainThread("job graph store get " + jobId);
                JobGraph g = graphs.get(jobId);
                if (g == null) {
                    throw new IllegalStateException("No stored job graph for job " + jobId);
                }
                return g;
            }

            @Override
            public void removeJobGraph(JobId jobId) {
                MainThreads.checkNotMainThread("job graph store remove " + jobId);
                graphs.remove(jobId);
            }
        };
    }

    @Override
    public JobResultStore jobResultStore() {
        return new JobResultStore() {
            @Override
            public void putResult(JobResult result) {
                MainThreads.checkNotMainThread("job result store put " + result.jobId());
                results.put(result.jobId(), result);
            }

            @Override
            public boolean hasResult(JobId jobId) {
                MainThreads.checkNotMainThread("job result store get " + jobId);
                return results.containsKey(jobId);
            }

            @Override
            public Optional<JobResult> result(JobId jobId) {
                MainThreads.checkNotMainThread("job result store get " + jobId);
                return Optional.ofNullable(results.get(jobId));
            }

            @Override
            public Collection<JobResult> results() {
                return new ArrayList<>(results.values());
            }

            @Override
            public void removeResult(JobId jobId) {
                MainThreads.checkNotMainThread("job result store remove " + jobId);
                results.remove(jobId);
            }
        };
    }

    @Override
    public io.sluice.jar.JobJarStore jobJarStore() {
        return jobJars;
    }

    @Override
    public io.sluice.ha.SavepointStore savepointStore() {
        return savepoints;
    }

    @Override
    public CheckpointRecoveryFactory checkpointRecoveryFactory() {
        return new CheckpointRecoveryFactory() {
            @Override
            public CompletedCheckpointStore createRecoveredCompletedCheckpointStore(JobId jobId, int maxRetained,
                    CheckpointStorage storage, LeaderElection election, UUID leaderSessionId,
                    boolean allowStartWithoutCheckpoint, RecoveryListener listener) {
                listener.pointersFound(0);
                return new StandaloneCompletedCheckpointStore(jobId, maxRetained, storage);
            }

            @Override
            public CheckpointIdCounter createCheckpointIdCounter(JobId jobId, long minimumNextId) {
                return new InMemoryCheckpointIdCounter(minimumNextId);
            }
        };
    }

    @Override
    public void close() {
        notifier.shutdown();
    }

    /** A place in the in-memory dispatcher election (a start-order queue). */
    private final class QueuedLeaderElection implements LeaderElection {
        final String contenderId;
        volatile LeaderContender contender;
        // Guarded by dispatcherLock.
        UUID session;
        boolean started;
        boolean closed;

        QueuedLeaderElection(String contenderId) {
            this.contenderId = contenderId;
        }

        @Override
        public void startLeaderElection(LeaderContender leaderContender) {
            synchronized (dispatcherLock) {
                if (started || closed) {
                    throw new IllegalStateException("The dispatcher election place of " + contenderId
                            + " was already started or closed");
                }
                started = true;
                contender = leaderContender;
                dispatcherContenders.addLast(this);
                grantNextDispatcher();
            }
        }

        @Override
        public boolean hasLeadership(UUID leaderSessionId) {
            synchronized (dispatcherLock) {
                return !closed && dispatcherLeader == this && leaderSessionId != null && leaderSessionId.equals(session);
            }
        }

        @Override
        public void runIfLeader(UUID leaderSessionId, FencedWrite write) throws Exception {
            MainThreads.checkNotMainThread("fenced HA write of the dispatcher leadership");
            synchronized (dispatcherLock) {
                if (!hasLeadership(leaderSessionId)) {
                    throw new LeadershipLostException(contenderId + " no longer leads the dispatcher (session "
                            + leaderSessionId + "); the write was not performed");
                }
                write.run();
            }
        }

        @Override
        public void close() {
            synchronized (dispatcherLock) {
                if (closed) {
                    return;
                }
                closed = true;
                dispatcherContenders.remove(this);
                if (dispatcherLeader == this) {
                    dispatcherLeader = null;
                    session = null;
                    LeaderContender c = contender;
                    callback(c::revokeLeadership);
                    publishDispatcherLeader(Optional.empty());
                    grantNextDispatcher();
                }
            }
        }
    }

    /** Grants leadership to its contender as soon as it starts; revokes on close. */
    private static final class ImmediateLeaderElection implements LeaderElection {
        private UUID session;
        private LeaderContender contender;

        @Override
        public synchronized void startLeaderElection(LeaderContender contender) {
            this.contender = contender;
            this.session = UUID.randomUUID();
            contender.grantLeadership(session);
        }

        @Override
        public synchronized boolean hasLeadership(UUID leaderSessionId) {
            return leaderSessionId != null && leaderSessionId.equals(session);
        }

        @Override
        public synchronized void runIfLeader(UUID leaderSessionId, FencedWrite write) throws Exception {
            if (!hasLeadership(leaderSessionId)) {
                throw new LeadershipLostException("Session " + leaderSessionId + " no longer leads; the write was not performed");
            }
            write.run();
        }

        @Override
        public synchronized void close() {
            if (session != null) {
                session = null;
                if (contender != null) {
                    contender.revokeLeadership();
                }
            }
        }
    }
}
