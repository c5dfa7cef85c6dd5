package io.sluice.cluster.process;

import io.sluice.cluster.membership.JobManagerSession;
import io.sluice.cluster.membership.TaskExecutorRegistryGateway;
import io.sluice.concurrent.Futures;
import io.sluice.protocol.DispatcherGateway;
import io.sluice.protocol.JobSummary;
import io.sluice.graph.JobGraph;
import io.sluice.graph.JobId;
import io.sluice.protocol.JobDetails;
import io.sluice.job.JobResult;
import io.sluice.rpc.Acknowledge;
import io.sluice.rpc.remote.FencingTokenMismatchException;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;

/**
 * A standby's way to the leader's Dispatcher: calls it over RPC under the leader's dispatcher leader
 * session, which it asks the leader for first ({@link TaskExecutorRegistryGateway#leaderSession()},
 * unfenced) and keeps. A call refused for its session (the leader was deposed, or led again under a
 * new session) drops the session and is made once more under a freshly asked one; if that job manager
 * no longer leads at all, the call fails saying so, and the next request resolves the leader anew
 * from leader retrieval ({@link JobManagerProcess#leaderDispatcher()}).
 *
 * <p>Threading: any thread; never blocks; futures complete on RPC worker threads.
 */
final class LeaderDispatcherGateway implements DispatcherGateway {
    private final String leader;
    private final TaskExecutorRegistryGateway sessions;
    private final Function<UUID, DispatcherGateway> fencedDispatcher;
    private final AtomicReference<CompletableFuture<DispatcherGateway>> current = new AtomicReference<>();

    /**
     * @param leader           the leader's contender id, for errors
     * @param sessions         an unfenced gateway to the leader's registry (it answers the leader session)
     * @param fencedDispatcher the leader's Dispatcher as a gateway whose calls carry the given session
     */
    LeaderDispatcherGateway(String leader, TaskExecutorRegistryGateway sessions,
                            Function<UUID, DispatcherGateway> fencedDispatcher) {
        this.leader = leader;
        this.sessions = sessions;
        this.fencedDispatcher = fencedDispatcher;
    }

    private CompletableFuture<DispatcherGateway> gateway() {
        CompletableFuture<DispatcherGateway> known = current.get();
        if (known != null && !known.isCompletedExceptionally()) {
            return known;
        }
        CompletableFuture<DispatcherGateway> fresh = sessions.leaderSession().thenApply(this::fenced);
        return current.compareAndSet(known, fresh) ? fresh : current.get();
    }

    private DispatcherGateway fenced(JobManagerSession s) {
        if (!s.leads()) {
            throw new NoLongerLeaderException("Job manager " + leader + " no longer leads: " + s.message()
                    + "; retry: the next request asks leader retrieval for the leader again");
        }
        return fencedDispatcher.apply(s.leaderSession());
    }

    private <T> CompletableFuture<T> call(Function<DispatcherGateway, CompletableFuture<T>> call) {
        return callOnce(call).exceptionallyCompose(error -> {
            if (!FencingTokenMismatchException.isCause(error)) {
                return CompletableFuture.failedFuture(error);
            }
            return callOnce(call); // the stale session was dropped: asks for the current one, once

        });
    }

    private <T> CompletableFuture<T> callOnce(Function<DispatcherGateway, CompletableFuture<T>> call) {
        CompletableFuture<DispatcherGateway> g = gateway();
        return g.thenCompose(call).whenComplete((ok, error) -> {
            if (error != null && FencingTokenMismatchException.isCause(Futures.unwrap(error))) {
                current.compareAndSet(g, null);
            }
        });
    }

    @Override
    public CompletableFuture<JobId> submitJob(JobGraph jobGraph) {
        return call(d -> d.submitJob(jobGraph));
    }

    @Override
    public CompletableFuture<List<JobSummary>> listJobs() {
        return call(DispatcherGateway::listJobs);
    }

    @Override
    public CompletableFuture<JobDetails> requestJobDetails(JobId jobId) {
        return call(d -> d.requestJobDetails(jobId));
    }

    @Override
    public CompletableFuture<Acknowledge> cancelJob(JobId jobId) {
        return call(d -> d.cancelJob(jobId));
    }

    @Override
    public CompletableFuture<JobResult> requestJobResult(JobId jobId) {
        return call(d -> d.requestJobResult(jobId));
    }

    @Override
    public CompletableFuture<io.sluice.protocol.CheckpointsDeletion> deleteCheckpoints(JobId jobId) {
        return call(d -> d.deleteCheckpoints(jobId));
    }

    @Override
    public CompletableFuture<io.sluice.checkpoint.Savepoint> triggerSavepoint(JobId jobId, String targetDirectory,
                                                                             boolean stop) {
        return call(d -> d.triggerSavepoint(jobId, targetDirectory, stop));
    }

    @Override
    public CompletableFuture<List<io.sluice.checkpoint.Savepoint>> listSavepoints(JobId jobId) {
        return call(d -> d.listSavepoints(jobId));
    }

    @Override
    public CompletableFuture<Optional<JobGraph>> requestJobGraph(JobId jobId) {
        return call(d -> d.requestJobGraph(jobId));
    }

    @Override
    public String toString() {
        return "the dispatcher of leader " + leader;
    }
}
