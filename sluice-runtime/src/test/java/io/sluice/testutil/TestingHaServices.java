package io.sluice.testutil;

import io.sluice.checkpoint.CheckpointIdCounter;
import io.sluice.checkpoint.CheckpointStorage;
import io.sluice.checkpoint.CompletedCheckpointStore;
import io.sluice.checkpoint.InMemoryCheckpointIdCounter;
import io.sluice.checkpoint.StandaloneCompletedCheckpointStore;
import io.sluice.graph.JobGraph;
import io.sluice.graph.JobId;
import io.sluice.ha.CheckpointRecoveryFactory;
import io.sluice.ha.HighAvailabilityServices;
import io.sluice.ha.JobAlreadySubmittedException;
import io.sluice.ha.JobGraphStore;
import io.sluice.ha.JobResultStore;
import io.sluice.ha.LeaderElection;
import io.sluice.ha.LeaderRetrieval;
import io.sluice.ha.RecoveryListener;
import io.sluice.job.JobResult;
import io.sluice.storage.StorageException;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * HA services for deterministic tests of the coordination classes: elections are
 * {@link TestingLeaderElection}s the test grants and revokes (one per job and contender, one for
 * the dispatcher per contender); the job graph and result stores are in memory and can be told to
 * fail ({@link #failResultWrites(int)}); checkpoint recovery runs {@link #onRecover} (by default an
 * empty in-memory store). Every store call is counted. Thread-safe.
 */
public final class TestingHaServices implements HighAvailabilityServices {
    /** What a checkpoint recovery does; runs on the (manual) I/O executor. */
    @FunctionalInterface
    public interface Recovery {
        CompletedCheckpointStore recover(JobId jobId, int maxRetained, CheckpointStorage storage,
                                         boolean allowStartWithoutCheckpoint, RecoveryListener listener) throws Exception;
    }

    private final Map<String, List<TestingLeaderElection>> jobElections = new ConcurrentHashMap<>();
    private final Map<String, TestingLeaderElection> dispatcherElections = new ConcurrentHashMap<>();
    private final Map<JobId, JobGraph> graphs = new ConcurrentHashMap<>();
    private final Map<JobId, JobResult> results = new ConcurrentHashMap<>();
    private final AtomicInteger resultWriteFailures = new AtomicInteger();
    private final AtomicInteger resultWriteAttempts = new AtomicInteger();
    private final List<JobId> removedGraphs = new CopyOnWriteArrayList<>();
    private volatile Recovery recovery = (jobId, maxRetained, storage, allow, listener) -> {
        listener.pointersFound(0);
        return new StandaloneCompletedCheckpointStore(jobId, maxRetained, storage);
    };
    private volatile String dispatcherLeader;

    /** The latest election of {@code jobId} handed to {@code contenderId}, or null. */
    public TestingLeaderElection jobElection(JobId jobId, String contenderId) {
        List<TestingLeaderElection> all = jobElections(jobId, contenderId);
        return all.isEmpty() ? null : all.get(all.size() - 1);
    }

    /** Every election of {@code jobId} handed to {@code contenderId} (one per job manager runner), in order. */
    public List<TestingLeaderElection> jobElections(JobId jobId, String contenderId) {
        return List.copyOf(jobElections.getOrDefault(jobId.value() + "/" + contenderId, List.of()));
    }

    public TestingLeaderElection dispatcherElection(String contenderId) {
        return dispatcherElections.computeIfAbsent(contenderId,
                k -> new TestingLeaderElection("dispatcher election (" + contenderId + ")"));
    }

    /** What {@link #dispatcherLeaderRetrieval()} reports. */
    public void setDispatcherLeader(String contenderId) {
        this.dispatcherLeader = contenderId;
    }

    /** The next {@code n} job-result writes fail with a storage error; {@code Integer.MAX_VALUE}: until told otherwise. */
    public void failResultWrites(int n) {
        resultWriteFailures.set(n);
    }

    public int resultWriteAttempts() {
        return resultWriteAttempts.get();
    }

    /** The minimum next id of every checkpoint id counter created, in order. */
    public java.util.List<Long> counterMinimums() {
        return java.util.List.copyOf(counterMinimums);
    }

    private final java.util.List<Long> counterMinimums = new java.util.concurrent.CopyOnWriteArrayList<>();

    public TestingHaServices onRecover(Recovery r) {
        this.recovery = r;
        return this;
    }

    public Map<JobId, JobGraph> storedGraphs() {
        return graphs;
    }

    public Map<JobId, JobResult> storedResults() {
        return results;
    }

    public List<JobId> removedGraphs() {
        return List.copyOf(removedGraphs);
    }

    @Override
    public LeaderElection jobLeaderElection(JobId jobId, String contenderId) {
        TestingLeaderElection e = new TestingLeaderElection("election of job " + jobId + " (" + contenderId + ")");
        jobElections.computeIfAbsent(jobId.value() + "/" + contenderId, k -> new CopyOnWriteArrayList<>()).add(e);
        return e;
    }

    @Override
    public LeaderElection dispatcherLeaderElection(String contenderId) {
        return dispatcherElection(contenderId);
    }

    @Override
    public LeaderRetrieval dispatcherLeaderRetrieval() {
        return new LeaderRetrieval() {
            @Override
            public Optional<String> currentLeader() {
                return Optional.ofNullable(dispatcherLeader);
            }

            @Override
            public void addListener(Consumer<Optional<String>> listener) {
            }

            @Override
            public void removeListener(Consumer<Optional<String>> listener) {
            }
        };
    }

    @Override
    public JobGraphStore jobGraphStore() {
        return new JobGraphStore() {
            @Override
            public void putJobGraph(JobGraph jobGraph) throws JobAlreadySubmittedException {
                if (graphs.putIfAbsent(jobGraph.jobId(), jobGraph) != null) {
                    throw new JobAlreadySubmittedException(jobGraph.jobId(), "test store");
                }
            }

            @Override
            public Collection<JobId> jobIds() {
                return List.copyOf(graphs.keySet());
            }

            @Override
            public JobGraph recoverJobGraph(JobId jobId) {
                JobGraph g = graphs.get(jobId);
                if (g == null) {
                    throw new IllegalStateException("No job graph of " + jobId);
                }
                return g;
            }

            @Override
            public void removeJobGraph(JobId jobId) {
                graphs.remove(jobId);
                removedGraphs.add(jobId);
            }
        };
    }

    @Override
    public JobResultStore jobResultStore() {
        return new JobResultStore() {
            @Override
            public void putResult(JobResult result) {
                resultWriteAttempts.incrementAndGet();
                if (resultWriteFailures.getAndUpdate(n -> n > 0 && n != Integer.MAX_VALUE ? n - 1 : n) > 0) {
                    throw new StorageException("Job result store test://results unreachable (Connection refused)"
                            + " during put " + result.jobId());
                }
                results.put(result.jobId(), result);
            }

            @Override
            public boolean hasResult(JobId jobId) {
                return results.containsKey(jobId);
            }

            @Override
            public Optional<JobResult> result(JobId jobId) {
                return Optional.ofNullable(results.get(jobId));
            }

            @Override
            public Collection<JobResult> results() {
                return List.copyOf(results.values());
            }

            @Override
            public void removeResult(JobId jobId) {
                if (resultWriteFailures.getAndUpdate(n -> n > 0 && n != Integer.MAX_VALUE ? n - 1 : n) > 0) {
                    throw new StorageException("Job result store test://results unreachable (Connection refused)"
                            + " during remove " + jobId);
                }
                results.remove(jobId);
            }
        };
    }

    @Override
    public CheckpointRecoveryFactory checkpointRecoveryFactory() {
        return new CheckpointRecoveryFactory() {
            @Override
            public CompletedCheckpointStore createRecoveredCompletedCheckpointStore(JobId jobId, int maxRetained,
                    CheckpointStorage storage, LeaderElection election, UUID leaderSessionId,
                    boolean allowStartWithoutCheckpoint, RecoveryListener listener) throws Exception {
                return recovery.recover(jobId, maxRetained, storage, allowStartWithoutCheckpoint, listener);
            }

            @Override
            public CheckpointIdCounter createCheckpointIdCounter(JobId jobId, long minimumNextId) {
                counterMinimums.add(minimumNextId);
                return new InMemoryCheckpointIdCounter(minimumNextId);
            }
        };
    }

    private final TestingSavepointStore savepoints = new TestingSavepointStore();

    @Override
    public TestingSavepointStore savepointStore() {
        return savepoints;
    }

    @Override
    public void close() {
    }
}
