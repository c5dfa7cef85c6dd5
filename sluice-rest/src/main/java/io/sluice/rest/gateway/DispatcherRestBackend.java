package io.sluice.rest.gateway;

import io.sluice.concurrent.BackoffPolicy;
import io.sluice.concurrent.Futures;
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
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(DispatcherRestBackend.class);
    /** How long to wait before asking again for the result of a job whose jar goes with its last job. */
    private static final BackoffPolicy RESULT_RETRY = BackoffPolicy.fixed(java.time.Duration.ofSeconds(5));

    private final ClusterView cluster;
    private final LocalJarDirectory jars;
    private final JarRunner jarRunner;
    private final boolean deleteJarsWithLastJob;

    public DispatcherRestBackend(ClusterView cluster, LocalJarDirectory jars, JarRunner jarRunner) {
        this(cluster, jars, jarRunner, false);
    }

    /**
     * @param jars                  the jar directory, with the jars of an earlier run already loaded
     *                              ({@link LocalJarDirectory#loadStored()}): when {@code deleteJarsWithLastJob},
     *                              each is watched from here on, so it goes once the jobs recorded for it
     *                              (also jobs the cluster recovered after a restart) have ended
     * @param deleteJarsWithLastJob delete an uploaded jar once every job run from it has ended ({@code rest.jars.delete-with-last-job})
     */
    public DispatcherRestBackend(ClusterView cluster, LocalJarDirectory jars, JarRunner jarRunner,
                                 boolean deleteJarsWithLastJob) {
        this.cluster = cluster;
        this.jars = jars;
        this.jarRunner = jarRunner;
        this.deleteJarsWithLastJob = deleteJarsWithLastJob;
        if (deleteJarsWithLastJob) {
            for (JarInfo jar : jars.list()) {
                jars.jobsOf(jar.id()).forEach(job -> deleteJarWhenJobEnds(jar.id(), job));
            }
        }
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
                    new RunRequest(entryClass, request.parallelism(), request.args(), request.config())))
                    .thenCompose(jobId -> {
                        CompletableFuture<Void> recorded = jars.recordRun(jarId, jobId); // in memory at once
                        if (deleteJarsWithLastJob) {
                            deleteJarWhenJobEnds(jarId, jobId);
                        }
                        return recorded.handle((ok, error) -> {
                            if (error != null) {
                                // The job runs; only a restart of this server would forget that it uses the jar.
                                LOG.warn("{}", error.getCause() != null ? error.getCause().getMessage() : error.getMessage());
                            }
                            return jobId;
                        });
                    });
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    @Override
    public CompletableFuture<io.sluice.checkpoint.Savepoint> triggerSavepoint(JobId jobId, String directory,
                                                                             boolean stop) {
        return withDispatcher(d -> d.triggerSavepoint(jobId, directory, stop));
    }

    @Override
    public CompletableFuture<List<io.sluice.checkpoint.Savepoint>> listSavepoints(JobId jobId) {
        return withDispatcher(d -> d.listSavepoints(jobId));
    }

    @Override
    public CompletableFuture<io.sluice.protocol.CheckpointsDeletion> deleteCheckpoints(JobId jobId) {
        return withDispatcher(d -> d.deleteCheckpoints(jobId));
    }

    /** Refuses (409) while a job run from the jar has not ended; a job the cluster no longer knows counts as ended. */
    @Override
    public CompletableFuture<JarInfo> deleteJar(String jarId) {
        try {
            JarInfo jar = jars.find(jarId).orElseThrow(() -> RestException.notFound("No jar " + jarId
                    + " is stored here; list the stored jars with GET /v1/jars (sluice jars)"));
            return runningJobsOf(jarId).thenCompose(running -> {
                if (!running.isEmpty()) {
                    throw new IllegalStateException("The jar " + jarId + " (" + jar.name() + ") is used by "
                            + String.join(", ", running) + "; cancel "
                            + (running.size() == 1 ? "that job" : "those jobs") + " first (sluice cancel <jobId>),"
                            + " or wait for them to end, then delete the jar");
                }
                return jars.delete(jarId);
            }).thenApply(deleted -> deleted.orElseThrow(() -> RestException.notFound("The jar " + jarId
                    + " was deleted meanwhile")));
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /** "job <id> (RUNNING)" for each job run from the jar that has not ended. */
    private CompletableFuture<List<String>> runningJobsOf(String jarId) {
        List<CompletableFuture<String>> checks = jars.jobsOf(jarId).stream().map(job -> jobDetails(job)
                .handle((details, error) -> {
                    if (error != null) {
                        Throwable cause = Futures.unwrap(error);
                        if (cause instanceof io.sluice.protocol.UnknownJobException) {
                            return (String) null; // forgotten by the cluster: it ended long ago
                        }
                        throw new IllegalStateException("Could not tell whether job " + job + ", run from the jar "
                                + jarId + ", has ended (" + cause.getMessage() + "); retry the delete in a moment", cause);
                    }
                    return details.status().isGloballyTerminal() ? null : "job " + job + " (" + details.status() + ")";
                })).toList();
        return CompletableFuture.allOf(checks.toArray(CompletableFuture[]::new))
                .thenApply(ignored -> checks.stream().map(CompletableFuture::join).filter(java.util.Objects::nonNull).toList());
    }

    /** Deletes the jar once {@code jobId} has ended, if by then no other job run from it runs. */
    private void deleteJarWhenJobEnds(String jarId, JobId jobId) {
        withDispatcher(d -> d.requestJobResult(jobId)).whenComplete((result, error) -> {
            Throwable cause = Futures.unwrap(error);
            if (error != null && !(cause instanceof io.sluice.protocol.UnknownJobException)) {
                // No answer yet (a leader change, a timeout): ask again later.
                CompletableFuture.delayedExecutor(RESULT_RETRY.initialDelay().toMillis(),
                                java.util.concurrent.TimeUnit.MILLISECONDS)
                        .execute(() -> deleteJarWhenJobEnds(jarId, jobId));
                return;
            }
            if (jars.find(jarId).isEmpty()) {
                return; // deleted already
            }
            runningJobsOf(jarId).thenCompose(running -> running.isEmpty() ? jars.delete(jarId)
                    : CompletableFuture.completedFuture(Optional.<JarInfo>empty()))
                    .whenComplete((deleted, e) -> {
                        if (deleted != null && deleted.isPresent()) {
                            LOG.info("Deleted the jar {} ({}): its last job {} ended (rest.jars.delete-with-last-job)",
                                    jarId, deleted.get().name(), jobId);
                        } else if (e != null) {
                            LOG.warn("Could not delete the jar {} after its last job {} ended: {}", jarId, jobId,
                                    e.getMessage());
                        }
                    });
        });
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
