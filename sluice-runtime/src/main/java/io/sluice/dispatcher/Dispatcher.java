package io.sluice.dispatcher;

import io.sluice.checkpoint.CheckpointStats;
import io.sluice.checkpoint.CheckpointStorage;
import io.sluice.graph.JobGraph;
import io.sluice.graph.JobId;
import io.sluice.jobmaster.JobDetails;
import io.sluice.jobmaster.JobManagerRunner;
import io.sluice.jobmaster.JobManagerServices;
import io.sluice.jobmaster.JobResult;
import io.sluice.jobmaster.JobStatus;
import io.sluice.jobmaster.JobStatusTransition;
import io.sluice.jobmaster.RecoveryStatus;
import io.sluice.rpc.Acknowledge;
import io.sluice.rpc.MainThreadExecutor;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The job manager's front door: accepts jobs, keeps one {@link JobManagerRunner} per job, answers
 * status, listing and cancel, and recovers the stored jobs when it starts.
 *
 * <p>Threading: all state on {@code mainThread}. Every store access (job graphs, job results,
 * checkpoint storage probes) runs on the I/O executor, so answers never wait for storage. On
 * start, the job ids are listed with one call and each job graph is then read separately, so a
 * status query is answered at once: jobs whose graph is not read yet are reported INITIALIZING
 * ("reading the job graph") rather than unknown, and while the listing itself is still running,
 * any id is reported INITIALIZING ("recovering the list of jobs").
 */
public final class Dispatcher implements DispatcherGateway {
    private static final Logger LOG = LoggerFactory.getLogger(Dispatcher.class);

    private final JobManagerServices services;
    private final MainThreadExecutor mainThread;
    private final Map<JobId, JobManagerRunner> runners = new LinkedHashMap<>();
    private final Set<JobId> graphsBeingRead = new LinkedHashSet<>();
    private final Set<JobId> submissionsInFlight = new HashSet<>();
    private final Map<JobId, JobResult> finished = new LinkedHashMap<>();
    private final Map<JobId, JobDetails> finishedDetails = new LinkedHashMap<>();
    private final long startMillis;
    private boolean listingJobs;
    private final CompletableFuture<Void> listingDone = new CompletableFuture<>();
    /** Result requests for jobs whose graph is still being read wait on these. */
    private final Map<JobId, CompletableFuture<JobManagerRunner>> runnerStarted = new java.util.HashMap<>();
    private int listingAttempt;
    private boolean closed;

    public Dispatcher(JobManagerServices services, MainThreadExecutor mainThread) {
        this.services = services;
        this.mainThread = mainThread;
        this.startMillis = services.clock().currentTimeMillis();
    }

    /** Starts recovering stored jobs. Returns at once. */
    public void start() {
        mainThread.execute(() -> {
            listingJobs = true;
            listJobsToRecover();
        });
    }

    /** What the stores hold at start: jobs to recover, and results of jobs that ended before. */
    private record StoredJobs(Collection<JobId> ids, Collection<JobResult> results) {
    }

    private void listJobsToRecover() {
        listingAttempt++;
        CompletableFuture.supplyAsync(() -> {
            try {
                return new StoredJobs(services.ha().jobGraphStore().jobIds(), services.ha().jobResultStore().results());
            } catch (Exception e) {
                throw new CompletionException(e);
            }
        }, services.ioExecutor()).whenCompleteAsync((stored, error) -> {
            if (closed) {
                return;
            }
            if (error != null) {
                Duration delay = services.recoveryBackoff().delayAfter(listingAttempt, services.random());
                LOG.warn("Could not list the stored jobs (attempt {}): {}; retrying in {} ms", listingAttempt,
                        JobResult.describe(error), delay.toMillis());
                mainThread.schedule(this::listJobsToRecover, delay);
                return;
            }
            listingJobs = false;
            listingDone.complete(null);
            for (JobResult r : stored.results()) {
                if (!runners.containsKey(r.jobId())) {
                    finished.putIfAbsent(r.jobId(), r);
                    finishedDetails.putIfAbsent(r.jobId(), detailsOf(r));
                }
            }
            Collection<JobId> ids = stored.ids();
            LOG.info("Recovering {} stored job(s); {} ended before", ids.size(), stored.results().size());
            for (JobId id : ids) {
                if (!runners.containsKey(id) && !finished.containsKey(id) && graphsBeingRead.add(id)) {
                    readJobGraph(id, 1);
                }
            }
        }, mainThread);
    }

    private void readJobGraph(JobId id, int attempt) {
        CompletableFuture.supplyAsync(() -> {
            try {
                return services.ha().jobGraphStore().recoverJobGraph(id);
            } catch (Exception e) {
                throw new CompletionException(e);
            }
        }, services.ioExecutor()).whenCompleteAsync((graph, error) -> {
            if (closed || !graphsBeingRead.contains(id)) {
                return;
            }
            if (error != null) {
                Duration delay = services.recoveryBackoff().delayAfter(attempt, services.random());
                LOG.warn("Could not read the job graph of job {} (attempt {}): {}; retrying in {} ms", id, attempt,
                        JobResult.describe(error), delay.toMillis());
                mainThread.schedule(() -> readJobGraph(id, attempt + 1), delay);
                return;
            }
            graphsBeingRead.remove(id);
            startRunner(graph);
        }, mainThread);
    }

    @Override
    public CompletableFuture<JobId> submitJob(JobGraph jobGraph) {
        return CompletableFuture.supplyAsync(() -> {
            JobId id = jobGraph.jobId();
            String what = "Job '" + jobGraph.name() + "' (" + id + ")";
            if (closed) {
                throw new JobSubmissionException(what + " was rejected: the job manager is shutting down");
            }
            if (runners.containsKey(id) || graphsBeingRead.contains(id) || submissionsInFlight.contains(id)) {
                throw new JobSubmissionException(what + " was rejected: a job with this id is already running here");
            }
            if (finished.containsKey(id)) {
                throw new JobSubmissionException(what + " was rejected: it already ended (" + finished.get(id).status()
                        + "); submit it under a new job id");
            }
            if (jobGraph.requiredSlots() > services.slotPool().totalSlots()) {
                throw new JobSubmissionException(what + " was rejected: it needs " + jobGraph.requiredSlots()
                        + " slots (its largest parallelism) but the cluster has only " + services.slotPool().totalSlots()
                        + ". Lower the parallelism or add task executors or slots.");
            }
            CheckpointStorage storage;
            try {
                storage = services.checkpointStorages().forLocation(jobGraph.config().checkpointDir());
            } catch (RuntimeException e) {
                throw new JobSubmissionException(what + " was rejected: " + e.getMessage(), e);
            }
            submissionsInFlight.add(id);
            return storage;
        }, mainThread).thenApplyAsync(storage -> {
            try {
                if (jobGraph.config().checkpointingEnabled()) {
                    storage.checkWritable();
                }
                if (services.ha().jobResultStore().hasResult(jobGraph.jobId())) {
                    throw new JobSubmissionException("Job '" + jobGraph.name() + "' (" + jobGraph.jobId()
                            + ") was rejected: it already ended; submit it under a new job id");
                }
                services.ha().jobGraphStore().putJobGraph(jobGraph);
                return jobGraph;
            } catch (JobSubmissionException e) {
                throw e;
            } catch (Exception e) {
                throw new JobSubmissionException("Job '" + jobGraph.name() + "' (" + jobGraph.jobId()
                        + ") was rejected: " + e.getMessage(), e);
            }
        }, services.ioExecutor()).handleAsync((graph, error) -> {
            submissionsInFlight.remove(jobGraph.jobId());
            if (error != null) {
                Throwable cause = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
                throw cause instanceof RuntimeException re ? re : new CompletionException(cause);
            }
            if (closed) {
                throw new JobSubmissionException("Job " + jobGraph.jobId() + " was stored but the job manager is shutting"
                        + " down; it will be recovered at the next start");
            }
            LOG.info("Accepted job '{}' ({})", graph.name(), graph.jobId());
            startRunner(graph);
            return graph.jobId();
        }, mainThread);
    }

    private CompletableFuture<JobManagerRunner> runnerStarted(JobId id) {
        return runnerStarted.computeIfAbsent(id, k -> new CompletableFuture<>());
    }

    private void startRunner(JobGraph graph) {
        JobManagerRunner runner = new JobManagerRunner(graph, services, mainThread);
        runners.put(graph.jobId(), runner);
        CompletableFuture<JobManagerRunner> waiting = runnerStarted.remove(graph.jobId());
        if (waiting != null) {
            waiting.complete(runner);
        }
        runner.start();
        runner.resultFuture().whenCompleteAsync((result, error) -> {
            if (runners.get(graph.jobId()) != runner) {
                return;
            }
            runner.requestJobDetails().whenCompleteAsync((details, e) -> {
                runners.remove(graph.jobId());
                runner.close();  // leaves the election; the job master has already ended
                if (result != null) {
                    finished.put(graph.jobId(), result);
                    finishedDetails.put(graph.jobId(), details != null ? details : detailsOf(result));
                    LOG.info("Job '{}' ({}) ended {}", graph.name(), graph.jobId(), result.status());
                }
            }, mainThread);
        }, mainThread);
    }

    @Override
    public CompletableFuture<List<JobSummary>> listJobs() {
        return CompletableFuture.supplyAsync(() -> {
            List<JobSummary> out = new ArrayList<>();
            runners.values().forEach(r -> out.add(new JobSummary(r.jobId(), r.jobGraph().name(), r.status())));
            graphsBeingRead.forEach(id -> out.add(new JobSummary(id, null, JobStatus.INITIALIZING)));
            finished.values().forEach(r -> out.add(new JobSummary(r.jobId(), r.jobName(), r.status())));
            return out;
        }, mainThread);
    }

    @Override
    public CompletableFuture<JobDetails> requestJobDetails(JobId jobId) {
        return CompletableFuture.supplyAsync(() -> {
            JobManagerRunner runner = runners.get(jobId);
            if (runner != null) {
                return runner.requestJobDetails();
            }
            if (finishedDetails.containsKey(jobId)) {
                return CompletableFuture.completedFuture(finishedDetails.get(jobId));
            }
            if (graphsBeingRead.contains(jobId)) {
                return CompletableFuture.completedFuture(placeholder(jobId, "reading the job graph"));
            }
            if (listingJobs) {
                return CompletableFuture.completedFuture(placeholder(jobId,
                        "the job manager is recovering its list of jobs; this job may or may not be among them"));
            }
            return CompletableFuture.<JobDetails>failedFuture(new UnknownJobException(jobId));
        }, mainThread).thenCompose(f -> f);
    }

    private JobDetails placeholder(JobId jobId, String phase) {
        long now = services.clock().currentTimeMillis();
        return new JobDetails(jobId, null, JobStatus.INITIALIZING, List.of(new JobStatusTransition(JobStatus.INITIALIZING, startMillis)),
                List.of(), CheckpointStats.NONE, 0, null,
                new RecoveryStatus(phase, 0, -1, 0, now - startMillis, null, 0, List.of()));
    }

    private static JobDetails detailsOf(JobResult r) {
        return new JobDetails(r.jobId(), r.jobName(), r.status(), List.of(new JobStatusTransition(r.status(), r.endTimestampMillis())),
                List.of(), CheckpointStats.NONE, 0, r.failureMessage(), null);
    }

    @Override
    public CompletableFuture<Acknowledge> cancelJob(JobId jobId) {
        return CompletableFuture.supplyAsync(() -> {
            JobManagerRunner runner = runners.get(jobId);
            if (runner != null) {
                return runner.cancel();
            }
            if (finished.containsKey(jobId)) {
                return CompletableFuture.completedFuture(Acknowledge.INSTANCE);
            }
            if (graphsBeingRead.contains(jobId) || listingJobs) {
                return CompletableFuture.<Acknowledge>failedFuture(new IllegalStateException("Job " + jobId
                        + " is still being recovered by this job manager (its graph is being read); retry the cancel in a moment"));
            }
            return CompletableFuture.<Acknowledge>failedFuture(new UnknownJobException(jobId));
        }, mainThread).thenCompose(f -> f);
    }

    @Override
    public CompletableFuture<JobResult> requestJobResult(JobId jobId) {
        return CompletableFuture.supplyAsync(() -> {
            JobManagerRunner runner = runners.get(jobId);
            if (runner != null) {
                return runner.resultFuture().thenApply(r -> r);
            }
            if (finished.containsKey(jobId)) {
                return CompletableFuture.completedFuture(finished.get(jobId));
            }
            if (graphsBeingRead.contains(jobId)) {
                return runnerStarted(jobId).thenCompose(JobManagerRunner::resultFuture);
            }
            if (listingJobs) {
                // Not known yet: ask again once the stored jobs are listed (a result future is long-lived anyway).
                return listingDone.thenComposeAsync(ignored -> requestJobResult(jobId), mainThread);
            }
            return CompletableFuture.<JobResult>failedFuture(new UnknownJobException(jobId));
        }, mainThread).thenCompose(f -> f);
    }

    /** Leaves all elections and suspends running jobs (they stay stored for the next start). */
    public CompletableFuture<Void> close() {
        return CompletableFuture.supplyAsync(() -> {
            closed = true;
            Collection<JobManagerRunner> all = List.copyOf(runners.values());
            return CompletableFuture.allOf(all.stream().map(JobManagerRunner::close).toArray(CompletableFuture[]::new));
        }, mainThread).thenCompose(f -> f);
    }
}
