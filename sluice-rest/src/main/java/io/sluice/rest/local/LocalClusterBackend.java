package io.sluice.rest.local;

import io.sluice.cluster.LocalCluster;
import io.sluice.dispatcher.DispatcherGateway;
import io.sluice.dispatcher.JobSummary;
import io.sluice.graph.JobId;
import io.sluice.jobmaster.JobDetails;
import io.sluice.rest.ClusterOverview;
import io.sluice.rest.JarInfo;
import io.sluice.rest.RestBackend;
import io.sluice.rest.RestException;
import io.sluice.rest.RunRequest;
import io.sluice.rest.SluiceVersion;
import io.sluice.rpc.Acknowledge;
import io.sluice.taskexecutor.TaskExecutor;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * The {@link RestBackend} of a {@link LocalCluster} in this process: jobs through the Dispatcher of
 * the job manager that leads (or, while none leads, the first one, which answers as a standby),
 * task executors and slots from the cluster, jars in a {@link LocalJarDirectory} run by a
 * {@link JarRunner}.
 *
 * <p>Threading: any thread. Nothing here blocks: the leader is chosen from what the Dispatchers hold
 * in memory ({@link io.sluice.dispatcher.Dispatcher#isLeader()}, the HA leader retrieval), slots are
 * read under the slot pool's short lock, and every job question is one gateway future.
 */
public final class LocalClusterBackend implements RestBackend {
    private final LocalCluster cluster;
    private final LocalJarDirectory jars;
    private final JarRunner jarRunner;

    public LocalClusterBackend(LocalCluster cluster, LocalJarDirectory jars, JarRunner jarRunner) {
        this.cluster = cluster;
        this.jars = jars;
        this.jarRunner = jarRunner;
    }

    /** The leading Dispatcher, else the first running job manager's (a standby names the leader in its answers). */
    private DispatcherGateway dispatcher() {
        List<LocalCluster.JobManager> jobManagers = cluster.jobManagers();
        for (LocalCluster.JobManager jm : jobManagers) {
            if (jm.dispatcher().isLeader()) {
                return jm.dispatcher();
            }
        }
        if (jobManagers.isEmpty()) {
            throw new RestException(503, "No job manager runs in this cluster; start one, or wait for it to start");
        }
        return jobManagers.get(0).dispatcher();
    }

    private <T> CompletableFuture<T> withDispatcher(java.util.function.Function<DispatcherGateway, CompletableFuture<T>> call) {
        try {
            return call.apply(dispatcher());
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    @Override
    public CompletableFuture<ClusterOverview> overview() {
        return listJobs().thenApply(jobs -> {
            Map<String, Integer> free = cluster.slotPool().freeSlotsByTaskExecutor();
            List<ClusterOverview.TaskExecutorInfo> executors = new ArrayList<>();
            for (TaskExecutor te : cluster.taskExecutors()) {
                executors.add(new ClusterOverview.TaskExecutorInfo(te.id(), te.numberOfSlots(), free.getOrDefault(te.id(), 0)));
            }
            Optional<String> leader = cluster.haServices().dispatcherLeaderRetrieval().currentLeader();
            boolean here = leader.isPresent() && cluster.jobManagers().stream().anyMatch(jm -> jm.id().equals(leader.get()));
            return new ClusterOverview(SluiceVersion.get(), new ClusterOverview.Leader(leader.orElse(null), here), executors,
                    cluster.slotPool().totalSlots(), cluster.slotPool().freeSlots(), countJobs(jobs));
        });
    }

    static ClusterOverview.JobCounts countJobs(List<JobSummary> jobs) {
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
    public CompletableFuture<java.util.Optional<io.sluice.graph.JobGraph>> jobGraph(JobId jobId) {
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
}
