package io.sluice.ha.memory;

import io.sluice.checkpoint.CheckpointIdCounter;
import io.sluice.checkpoint.CheckpointStorage;
import io.sluice.checkpoint.CompletedCheckpointStore;
import io.sluice.checkpoint.InMemoryCheckpointIdCounter;
import io.sluice.checkpoint.StandaloneCompletedCheckpointStore;
import io.sluice.graph.JobGraph;
import io.sluice.graph.JobId;
import io.sluice.ha.CheckpointRecoveryFactory;
import io.sluice.ha.HighAvailabilityServices;
import io.sluice.ha.JobGraphStore;
import io.sluice.ha.JobResultStore;
import io.sluice.ha.LeaderContender;
import io.sluice.ha.LeaderElection;
import io.sluice.ha.LeadershipLostException;
import io.sluice.ha.RecoveryListener;
import io.sluice.jobmaster.JobResult;
import io.sluice.rpc.MainThreads;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

/**
 * High-availability services that keep everything in memory: nothing survives the JVM. For tests
 * and for jobs that need no recovery across restarts ({@code high-availability.type: none}).
 * Leadership is granted at once to the only contender of each job. Thread-safe.
 */
public final class InMemoryHaServices implements HighAvailabilityServices {
    private final Map<JobId, JobGraph> graphs = new ConcurrentHashMap<>();
    private final Map<JobId, JobResult> results = new ConcurrentHashMap<>();

    @Override
    public LeaderElection jobLeaderElection(JobId jobId, String contenderId) {
        return new ImmediateLeaderElection();
    }

    @Override
    public JobGraphStore jobGraphStore() {
        return new JobGraphStore() {
            @Override
            public void putJobGraph(JobGraph jobGraph) {
                MainThreads.checkNotMainThread("job graph store put " + jobGraph.jobId());
                graphs.put(jobGraph.jobId(), jobGraph);
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
        };
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
