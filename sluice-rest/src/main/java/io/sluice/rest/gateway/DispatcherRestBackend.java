package io.sluice.rest.gateway;

import io.sluice.protocol.DispatcherGateway;
import io.sluice.protocol.JobSummary;
import io.sluice.graph.JobGraph;
import io.sluice.graph.JobId;
import io.sluice.protocol.JobDetails;
import io.sluice.rest.ClusterOverview;
import io.sluice.rest.model.JarInfo;
import io.sluice.rest.RestBackend;
import io.sluice.rest.RestException;
import io.sluice.rest.RunRequest;
import io.sluice.rest.SluiceVersion;
import io.sluice.rest.jars.JarRunner;
import io.sluice.rest.jars.LocalJarDirectory;
import io.sluice.rpc.Acknowledge;
import java.io.InputStream;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * The {@link RestBackend} that answers job questions from a {@link DispatcherGateway} (chosen per
 * request by a {@link ClusterView}), the cluster overview from the view's task executors and leader,
 * and keeps jars in a {@link LocalJarDirectory} run by a {@link JarRunner}. Whether the Dispatcher is
 * in this process or behind an RPC proxy makes no difference here.
 *
 * <p>Threading: any thread; every method returns at once with a future (no I/O on the caller's thread).
 */
public class DispatcherRestBackend implements RestBackend {
    private final ClusterView cluster;
    private final LocalJarDirectory jars;
    private final JarRunner jarRunner;

    public DispatcherRestBackend(ClusterView cluster, LocalJarDirectory jars, JarRunner jarRunner) {
        this.cluster = cluster;
        this.jars = jars;
        this.jarRunner = jarRunner;
    }

    private <T> CompletableFuture<T> withDispatcher(Function<DispatcherGateway, CompletableFuture<T>> call) {
        try {
            return call.apply(cluster.dispatcher());
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    @Override
    public CompletableFuture<ClusterOverview> overview() {
        return listJobs().thenApply(jobs -> {
            List<ClusterOverview.TaskExecutorInfo> executors = cluster.taskExecutors();
            int total = executors.stream().mapToInt(ClusterOverview.TaskExecutorInfo::slots).sum();
            int free = executors.stream().mapToInt(ClusterOverview.TaskExecutorInfo::slotsFree).sum();
            return new ClusterOverview(SluiceVersion.get(), cluster.leader(), executors, total, free, countJobs(jobs));
        });
    }

    /** Jobs by status, as {@code GET /v1/overview} counts them. */
    public static ClusterOverview.JobCounts countJobs(List<JobSummary> jobs) {
        int running = 0, initializing = 0, finished = 0, failed = 0, canceled = 0;
        for (JobSummary j : jobs) {
            switch (j.status()) {
                case INITIALIZING -> initializing++;
                case FINISHED -> finished++;
                case FAILED -> failed++;
                case CANCELED -> canceled++;
                case SUSPENDED -> { }
                default -> running++;
            }
        }
        return new ClusterOverview.JobCounts(jobs.size(), running, initializing, finished, failed, canceled);
    }

    @Override
    public CompletableFuture<List<JobSummary>> listJobs() {
        return withDispatcher(DispatcherGateway::listJobs);
    }

    @Override
    public CompletableFuture<JobDetails> jobDetails(JobId jobId) {
        return withDispatcher(d -> d.requestJobDetails(jobId));
    }

    @Override
    public CompletableFuture<Optional<JobGraph>> jobGraph(JobId jobId) {
        return withDispatcher(d -> d.requestJobGraph(jobId));
    }

    @Override
    public CompletableFuture<Acknowledge> cancelJob(JobId jobId) {
        return withDispatcher(d -> d.cancelJob(jobId));
    }

    @Override
    public CompletableFuture<JarInfo> uploadJar(String originalFileName, InputStream content, long maxBytes) {
        return jars.store(originalFileName, content, maxBytes);
    }

    @Override
    public CompletableFuture<List<JarInfo>> listJars() {
        return CompletableFuture.completedFuture(jars.list());
    }

    @Override
    public CompletableFuture<JobId> runJar(String jarId, RunRequest request) {
        try {
            JarInfo jar = jars.find(jarId).orElseThrow(() -> RestException.notFound("No jar " + jarId
                    + " is stored here; upload it with POST /v1/jars, or list the stored jars with GET /v1/jars"));
            return jars.entryClassOf(jar, request.entryClass()).thenCompose(entryClass -> jarRunner.run(jars.fileOf(jar), jar,
                    new RunRequest(entryClass, request.parallelism(), request.args(), request.config())));
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /**
     * The leader as this job manager knows it when the submission was acknowledged (the Dispatcher that
     * acknowledged led then: a standby's Dispatcher rejects submissions), and whether this one forwarded it.
     */
    @Override
    public io.sluice.rest.model.RunView submitted(JobId jobId) {
        ClusterOverview.Leader leader = cluster.leader();
        return new io.sluice.rest.model.RunView(jobId.value(), leader == null ? null : leader.contenderId(),
                leader != null && !leader.isThisNode());
    }
}
