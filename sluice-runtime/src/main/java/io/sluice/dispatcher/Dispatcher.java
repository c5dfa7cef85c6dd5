package io.sluice.dispatcher;

import io.sluice.checkpoint.CheckpointStats;
import io.sluice.checkpoint.CheckpointStorage;
import io.sluice.graph.JobGraph;
import io.sluice.graph.JobId;
import io.sluice.ha.JobAlreadySubmittedException;
import io.sluice.ha.LeaderContender;
import io.sluice.ha.LeaderElection;
import io.sluice.ha.LeaderRetrieval;
import io.sluice.ha.LeadershipLostException;
import io.sluice.jar.ClassLoaderLease;
import io.sluice.protocol.DispatcherGateway;
import io.sluice.protocol.JobDetails;
import io.sluice.jobmaster.runner.JobManagerRunner;
import io.sluice.jobmaster.JobManagerServices;
import io.sluice.job.JobResult;
import io.sluice.job.JobStatus;
import io.sluice.protocol.JobStatusTransition;
import io.sluice.protocol.JobSubmissionException;
import io.sluice.protocol.JobSummary;
import io.sluice.protocol.RecoveryStatus;
import io.sluice.protocol.UnknownJobException;
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
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The job manager's front door: accepts jobs, keeps one {@link JobManagerRunner} per job, answers
 * status, listing and cancel, and recovers the stored jobs while it leads.
 *
 * <p>Leadership: at {@link #start()} the Dispatcher joins the cluster's dispatcher election
 * ({@link io.sluice.ha.HighAvailabilityServices#dispatcherLeaderElection}, contender id = the job
 * manager id). Only while it leads does it recover the stored jobs and accept submissions; the job
 * graph put of a submission runs inside the dispatcher leadership's {@code runIfLeader}, so a
 * deposed leader cannot store a job that the new leader's recovery would miss. A standby rejects
 * submissions naming the leader ("This job manager (jobmanager-1) is a standby; submit to the
 * leader jobmanager-0"), answers status and listing for the jobs it knows (those it ran and that
 * ended), and holds result requests until it leads and has listed the stored jobs. When it loses
 * dispatcher leadership it closes its job runners (their jobs are suspended, and stay stored);
 * when it gains it, it lists and recovers all stored jobs again. Per-job leader elections stay as
 * they are and fence each job's writes.
 *
 * <p>Threading: all state on {@code mainThread}; election callbacks are handed to it. Every store
 * access (job graphs, job results, checkpoint storage probes) runs on the I/O executor, so answers
 * never wait for storage. When leadership is granted, the job ids are listed with one call and
 * each job graph is then read separately, so a status query is answered at once: jobs whose graph
 * is not read yet are reported INITIALIZING ("reading the job graph") rather than unknown, and
 * while the listing itself is still running, any id is reported INITIALIZING ("recovering the list
 * of jobs").
 *
 * <p>User code: for every job it runs, the Dispatcher holds a {@link ClassLoaderLease} from
 * {@link io.sluice.jar.UserCodeClassLoaders} (taken on the I/O executor when the job is stored or its
 * graph read back; for a job from a jar this loads the jar the HA services kept), and closes it once
 * the job's runner has closed, so the job's class loader lives exactly as long as the job runs here.
 */
public final class Dispatcher implements DispatcherGateway {
    private static final Logger LOG = LoggerFactory.getLogger(Dispatcher.class);

    private final JobManagerServices services;
    private final MainThreadExecutor mainThread;
    private final Map<JobId, JobManagerRunner> runners = new LinkedHashMap<>();
    /** The class loader lease of each runner's job (the runtime's loader for jobs not from jars). Main thread. */
    private final Map<JobId, ClassLoaderLease> leases = new java.util.HashMap<>();
    private final Set<JobId> graphsBeingRead = new LinkedHashSet<>();
    /** Jobs whose graph (or jar) could not be read yet: the last error and when the next attempt runs. */
    private final java.util.Map<JobId, GraphReadFailure> graphReadFailures = new java.util.HashMap<>();
    /** Jobs cancelled while their graph was being read: they end CANCELED instead of starting. */
    private final Set<JobId> cancelledWhileReading = new java.util.HashSet<>();
    private final Set<JobId> submissionsInFlight = new HashSet<>();
    private final Map<JobId, JobResult> finished = new LinkedHashMap<>();
    private final Map<JobId, JobDetails> finishedDetails = new LinkedHashMap<>();
    /**
     * Runners closed when the dispatcher leadership was lost, until their job masters' tasks have
     * ended and they left their elections: a new runner of the same job starts only after that, so
     * a revoke followed by a grant never runs two task sets of one job.
     */
    private final Map<JobId, CompletableFuture<Void>> closingRunners = new java.util.HashMap<>();
    private final long startMillis;
    private boolean listingJobs;
    /** Result requests for jobs that have not ended here yet: completed when the job ends here. */
    private final Map<JobId, CompletableFuture<JobResult>> resultWaiters = new java.util.HashMap<>();
    private int listingAttempt;
    private boolean closed;
    private final LeaderRetrieval leaderRetrieval;
    private volatile LeaderElection dispatcherElection;
    /** The current dispatcher leadership session, or null while a standby. Written on the main thread; read anywhere. */
    private volatile UUID leaderSession;
    private volatile boolean leading;
    /** Told after every change of {@link #leading}; must not block (any thread may be calling). */
    private volatile Runnable leadershipListener = () -> { };

    /** Cleans up after ended jobs while this Dispatcher leads (see {@link EndedJobJanitor}). Main thread. */
    private final EndedJobJanitor janitor;

    /** A Dispatcher with the default retention of ended jobs' checkpoints. */
    public Dispatcher(JobManagerServices services, MainThreadExecutor mainThread) {
        this(services, mainThread, EndedJobRetention.defaults());
    }

    /** @param retention how long ended jobs' retained checkpoints are kept ({@code checkpoints.ended-job-retention}) */
    public Dispatcher(JobManagerServices services, MainThreadExecutor mainThread, EndedJobRetention retention) {
        this.services = services;
        this.mainThread = mainThread;
        this.startMillis = services.clock().currentTimeMillis();
        this.leaderRetrieval = services.ha().dispatcherLeaderRetrieval();
        this.janitor = new EndedJobJanitor(retention, new EndedJobCleanup(services.ha(), services.checkpointStorages()),
                mainThread, services.ioExecutor(), services.clock(), services.recoveryBackoff(), services.random(),
                new EndedJobJanitor.Context() {
                    @Override
                    public UUID leaderSession() {
                        return leaderSession;
                    }

                    @Override
                    public LeaderElection dispatcherElection() {
                        return dispatcherElection;
                    }

                    @Override
                    public Collection<JobResult> endedJobs() {
                        return List.copyOf(finished.values());
                    }

                    @Override
                    public void resultChanged(JobResult result) {
                        finished.replace(result.jobId(), result);
                    }

                    @Override
                    public boolean inUse(JobId jobId) {
                        return runsOrStartedFrom(jobId);
                    }
                });
    }

    /** Whether {@code jobId} runs (or is recovered) here, or a job running here was started from its checkpoints. */
    private boolean runsOrStartedFrom(JobId jobId) {
        if (runners.containsKey(jobId) || graphsBeingRead.contains(jobId) || submissionsInFlight.contains(jobId)) {
            return true;
        }
        for (JobManagerRunner runner : runners.values()) {
            if (runner.jobGraph().config().hasRestoreFrom()
                    && runner.jobGraph().config().restoreFrom().contains(jobId.value())) {
                return true;
            }
        }
        return false;
    }

    /** Joins the dispatcher election; stored jobs are recovered once leadership is granted. Returns at once. */
    public void start() {
        mainThread.execute(() -> {
            if (closed || dispatcherElection != null) {
                return;
            }
            dispatcherElection = services.ha().dispatcherLeaderElection(services.contenderId());
            dispatcherElection.startLeaderElection(new LeaderContender() {
                @Override
                public void grantLeadership(UUID leaderSessionId) {
                    mainThread.execute(() -> onGrant(leaderSessionId));
                }

                @Override
                public void revokeLeadership() {
                    mainThread.execute(Dispatcher.this::onRevoke);
                }

                @Override
                public String description() {
                    return "dispatcher of " + services.contenderId();
                }
            });
        });
    }

    /**
     * Registers a callback run (on this Dispatcher's main thread) after every change of
     * {@link #isLeader()}; it must not block. Replaces any earlier one.
     */
    public void onLeadershipChange(Runnable listener) {
        this.leadershipListener = java.util.Objects.requireNonNull(listener, "listener");
    }

    /** The job manager id, which is this Dispatcher's contender id in the dispatcher election. */
    public String id() {
        return services.contenderId();
    }

    /**
     * Whether this Dispatcher currently leads and acts on it (set on its main thread when it handles
     * the grant, so a true answer means it accepts submissions). Any thread; from memory.
     */
    public boolean isLeader() {
        return leading;
    }

    /**
     * The dispatcher leader session this Dispatcher acts on now, or {@code null} while it does not
     * lead, also as soon as the HA services revoked it (before its main thread handled that). The
     * fencing token of this job manager's RPC endpoints. Any thread; from memory.
     */
    public UUID currentLeaderSession() {
        UUID s = leaderSession;
        LeaderElection election = dispatcherElection;
        return s != null && leading && election != null && election.hasLeadership(s) ? s : null;
    }

    private void onGrant(UUID session) {
        if (closed) {
            return;
        }
        if (leaderSession != null) {
            onRevoke();
        }
        LOG.info("{} leads the dispatcher (session {}); recovering the stored jobs", id(), session);
        leaderSession = session;
        leading = true;
        leadershipListener.run();
        listingJobs = true;
        listingAttempt = 0;
        listJobsToRecover(session);
    }

    private void onRevoke() {
        if (leaderSession == null) {
            return;
        }
        LOG.info("{} no longer leads the dispatcher; suspending its {} job(s)", id(), runners.size());
        leaderSession = null;
        janitor.notLeading();
        leading = false;
        leadershipListener.run();
        listingJobs = false;
        graphsBeingRead.clear();
        graphReadFailures.clear();
        cancelledWhileReading.clear();
        List<JobManagerRunner> all = List.copyOf(runners.values());
        runners.clear();
        for (JobManagerRunner runner : all) {
            // Suspends the job and leaves its election once its tasks ended; the new leader recovers it.
            CompletableFuture<Void> closing = runner.close();
            releaseLeaseAfter(runner.jobId(), closing);
            if (!closing.isDone()) {
                closingRunners.put(runner.jobId(), closing);
                closing.whenCompleteAsync((ignored, error) -> closingRunners.remove(runner.jobId(), closing), mainThread);
            }
        }
    }

    /** Closes the class loader lease of {@code jobId} once {@code done} completes (its runner has closed). */
    private void releaseLeaseAfter(JobId jobId, CompletableFuture<?> done) {
        ClassLoaderLease lease = leases.remove(jobId);
        if (lease != null) {
            done.whenComplete((ignored, error) -> lease.close());
        }
    }

    /** The message a standby gives a client that should talk to the leader. */
    private String standbyMessage(String action) {
        Optional<String> leader = leaderRetrieval.currentLeader();
        if (leader.isPresent() && !leader.get().equals(id())) {
            return "This job manager (" + id() + ") is a standby; " + action + " the leader " + leader.get();
        }
        if (leader.isPresent()) {
            return "This job manager (" + id() + ") is becoming the dispatcher leader; retry in a moment";
        }
        return "This job manager (" + id() + ") is a standby and no dispatcher leader is known yet; retry in a moment";
    }

    /** What the stores hold at start: jobs to recover, and results of jobs that ended before. */
    private record StoredJobs(Collection<JobId> ids, Collection<JobResult> results) {
    }

    private void listJobsToRecover(UUID session) {
        listingAttempt++;
        CompletableFuture.supplyAsync(() -> {
            try {
                return new StoredJobs(services.ha().jobGraphStore().jobIds(), services.ha().jobResultStore().results());
            } catch (Exception e) {
                throw new CompletionException(e);
            }
        }, services.ioExecutor()).whenCompleteAsync((stored, error) -> {
            if (closed || !session.equals(leaderSession)) {
                return; // no longer leading under this session: the next grant lists again
            }
            if (error != null) {
                Duration delay = services.recoveryBackoff().delayAfter(listingAttempt, services.random());
                LOG.warn("Could not list the stored jobs (attempt {}): {}; retrying in {} ms", listingAttempt,
                        JobResult.describe(error), delay.toMillis());
                mainThread.schedule(() -> {
                    if (!closed && session.equals(leaderSession)) {
                        listJobsToRecover(session);
                    }
                }, delay);
                return;
            }
            listingJobs = false;
            for (JobResult r : stored.results()) {
                if (!runners.containsKey(r.jobId())) {
                    finished.putIfAbsent(r.jobId(), r);
                    finishedDetails.putIfAbsent(r.jobId(), detailsOf(r));
                    CompletableFuture<JobResult> waiter = resultWaiters.remove(r.jobId());
                    if (waiter != null) {
                        waiter.complete(finished.get(r.jobId()));
                    }
                }
            }
            Collection<JobId> ids = stored.ids();
            LOG.info("Recovering {} stored job(s); {} ended before", ids.size(), stored.results().size());
            for (JobId id : ids) {
                if (!runners.containsKey(id) && !finished.containsKey(id) && !submissionsInFlight.contains(id)
                        && graphsBeingRead.add(id)) {
                    readJobGraph(id, 1, session);
                }
            }
            janitor.leading(session, ids, stored.results());
            // Result requests for jobs that are neither stored nor ended: unknown after all.
            for (JobId id : List.copyOf(resultWaiters.keySet())) {
                if (!runners.containsKey(id) && !graphsBeingRead.contains(id) && !submissionsInFlight.contains(id)
                        && !finished.containsKey(id)) {
                    resultWaiters.remove(id).completeExceptionally(new UnknownJobException(id));
                }
            }
        }, mainThread);
    }

    /** A job graph read back from the HA services, with the lease on the class loader of its user code. */
    private record RecoveredJob(JobGraph graph, ClassLoaderLease lease) {
    }

    /** Why a stored job's graph could not be read yet (attempt, error, next retry), for its status. */
    private record GraphReadFailure(int attempt, String error, long nextRetryAtMillis) {
    }

    private void readJobGraph(JobId id, int attempt, UUID session) {
        if (closed || !session.equals(leaderSession) || !graphsBeingRead.contains(id)) {
            return; // cancelled meanwhile, or leadership changed
        }
        CompletableFuture.supplyAsync(() -> {
            try {
                JobGraph graph = services.ha().jobGraphStore().recoverJobGraph(id);
                // A job from a jar: its user code is deserialized (by its tasks) with the jar's class loader.
                return new RecoveredJob(graph, services.userCode().acquire(id));
            } catch (Exception e) {
                throw new CompletionException(e);
            }
        }, services.ioExecutor()).whenCompleteAsync((recovered, error) -> {
            if (closed || !session.equals(leaderSession) || !graphsBeingRead.contains(id)) {
                if (recovered != null) {
                    recovered.lease().close();
                }
                return;
            }
            if (cancelledWhileReading.contains(id)) {
                if (recovered != null) {
                    recovered.lease().close();
                }
                endCancelledWhileReading(id, recovered != null ? recovered.graph().name() : null, 1, session);
                return;
            }
            if (error != null) {
                Duration delay = services.recoveryBackoff().delayAfter(attempt, services.random());
                String message = describeReadError(error);
                graphReadFailures.put(id, new GraphReadFailure(attempt, message,
                        services.clock().currentTimeMillis() + delay.toMillis()));
                LOG.warn("Could not read the job graph of job {} (attempt {}): {}; retrying in {} ms (cancel the job"
                        + " to stop; its checkpoints are kept)", id, attempt, message, delay.toMillis());
                mainThread.schedule(() -> readJobGraph(id, attempt + 1, session), delay);
                return;
            }
            graphsBeingRead.remove(id);
            graphReadFailures.remove(id);
            startRunner(recovered.graph(), recovered.lease());
        }, mainThread);
    }

    /** The outermost message of a failed read (the stores' own messages say which file and what to do). */
    private static String describeReadError(Throwable error) {
        Throwable t = error;
        while ((t instanceof CompletionException || t instanceof java.util.concurrent.ExecutionException)
                && t.getCause() != null) {
            t = t.getCause();
        }
        return t.getMessage() != null ? t.getMessage() : t.getClass().getName();
    }

    /**
     * A stored job cancelled before its graph could be read (say its jar fails its digest check):
     * records CANCELED in the job result store and removes its graph and jar, fenced on the
     * dispatcher leadership, retrying with backoff; its checkpoints are kept, so it can be started
     * again from them. Main thread.
     */
    private void endCancelledWhileReading(JobId id, String name, int attempt, UUID session) {
        JobResult result = new JobResult(id, name, JobStatus.CANCELED, services.clock().currentTimeMillis(),
                null, null);
        CompletableFuture.runAsync(() -> {
            try {
                dispatcherElection.runIfLeader(session, () -> services.ha().jobResultStore().putResult(result));
                dispatcherElection.runIfLeader(session, () -> services.ha().jobGraphStore().removeJobGraph(id));
                dispatcherElection.runIfLeader(session, () -> services.ha().jobJarStore().removeJobJar(id));
            } catch (Exception e) {
                throw new CompletionException(e);
            }
        }, services.ioExecutor()).whenCompleteAsync((ok, error) -> {
            if (closed || !session.equals(leaderSession) || !graphsBeingRead.contains(id)) {
                return;
            }
            if (error != null) {
                Duration delay = services.recoveryBackoff().delayAfter(attempt, services.random());
                LOG.warn("Job {} was cancelled, but its result could not be recorded (attempt {}): {}; retrying in {} ms",
                        id, attempt, JobResult.describe(error), delay.toMillis());
                mainThread.schedule(() -> endCancelledWhileReading(id, name, attempt + 1, session), delay);
                return;
            }
            graphsBeingRead.remove(id);
            graphReadFailures.remove(id);
            cancelledWhileReading.remove(id);
            finished.put(id, result);
            finishedDetails.put(id, detailsOf(result));
            LOG.info("Job {} was cancelled while its graph was being recovered; it ended CANCELED, its checkpoints"
                    + " are kept", id);
            CompletableFuture<JobResult> waiter = resultWaiters.remove(id);
            if (waiter != null) {
                waiter.complete(result);
            }
        }, mainThread);
    }

    /** What the main thread decided at submission: where checkpoints go, and under which leadership. */
    private record Admitted(CheckpointStorage storage, UUID session, ClassLoaderLease lease) {
        Admitted withLease(ClassLoaderLease l) {
            return new Admitted(storage, session, l);
        }
    }

    @Override
    public CompletableFuture<JobId> submitJob(JobGraph jobGraph) {
        return CompletableFuture.supplyAsync(() -> {
            JobId id = jobGraph.jobId();
            String what = "Job '" + jobGraph.name() + "' (" + id + ")";
            if (closed) {
                throw new JobSubmissionException(what + " was rejected: the job manager is shutting down");
            }
            if (leaderSession == null) {
                throw new JobSubmissionException(what + " was rejected. " + standbyMessage("submit to"));
            }
            if (runners.containsKey(id) || graphsBeingRead.contains(id) || submissionsInFlight.contains(id)) {
                throw new JobSubmissionException(what + " was rejected: a job with this id is already running here");
            }
            if (finished.containsKey(id)) {
                throw new JobSubmissionException(what + " was rejected: it already ended (" + finished.get(id).status()
                        + "); submit it under a new job id");
            }
            // A dynamic pool (cluster mode) grows as task executors register: the job waits for its slots.
            if (!services.slotPool().isDynamic() && jobGraph.requiredSlots() > services.slotPool().totalSlots()) {
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
            return new Admitted(storage, leaderSession, null);
        }, mainThread).thenApplyAsync(admitted -> {
            try {
                if (jobGraph.config().checkpointingEnabled()) {
                    admitted.storage().checkWritable();
                }
                if (services.ha().jobResultStore().hasResult(jobGraph.jobId())) {
                    throw new JobSubmissionException("Job '" + jobGraph.name() + "' (" + jobGraph.jobId()
                            + ") was rejected: it already ended; submit it under a new job id");
                }
                // Fenced on the dispatcher leadership: a deposed leader's put never lands after the new
                // leader listed the stored jobs. Conditional: a duplicate job id is rejected by the store.
                dispatcherElection.runIfLeader(admitted.session(),
                        () -> services.ha().jobGraphStore().putJobGraph(jobGraph));
                return admitted.withLease(services.userCode().acquire(jobGraph.jobId()));
            } catch (JobSubmissionException e) {
                throw e;
            } catch (JobAlreadySubmittedException e) {
                throw new JobSubmissionException("Job '" + jobGraph.name() + "' (" + jobGraph.jobId()
                        + ") was rejected: " + e.getMessage(), e);
            } catch (LeadershipLostException e) {
                throw new JobSubmissionException("Job '" + jobGraph.name() + "' (" + jobGraph.jobId()
                        + ") was rejected: this job manager (" + id() + ") lost the dispatcher leadership while"
                        + " storing it; submit to the new leader", e);
            } catch (Exception e) {
                throw new JobSubmissionException("Job '" + jobGraph.name() + "' (" + jobGraph.jobId()
                        + ") was rejected: " + e.getMessage(), e);
            }
        }, services.ioExecutor()).handleAsync((admitted, error) -> {
            JobGraph graph = jobGraph;
            submissionsInFlight.remove(graph.jobId());
            if (error != null) {
                Throwable cause = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
                throw cause instanceof RuntimeException re ? re : new CompletionException(cause);
            }
            if (closed) {
                admitted.lease().close();
                throw new JobSubmissionException("Job " + graph.jobId() + " was stored but the job manager is shutting"
                        + " down; it will be recovered by the next dispatcher leader");
            }
            if (!admitted.session().equals(leaderSession)) {
                admitted.lease().close();
                // Stored under our leadership before it ended: the next leader's recovery lists it.
                LOG.info("Accepted job '{}' ({}); leadership changed meanwhile, the dispatcher leader will run it",
                        graph.name(), graph.jobId());
                return graph.jobId();
            }
            LOG.info("Accepted job '{}' ({})", graph.name(), graph.jobId());
            if (!runners.containsKey(graph.jobId()) && !graphsBeingRead.contains(graph.jobId())) {
                startRunner(graph, admitted.lease());
            } else {
                admitted.lease().close();
            }
            return graph.jobId();
        }, mainThread);
    }

    private void startRunner(JobGraph graph, ClassLoaderLease lease) {
        JobManagerRunner runner = new JobManagerRunner(graph, services, mainThread);
        runners.put(graph.jobId(), runner);
        ClassLoaderLease previousLease = leases.put(graph.jobId(), lease);
        if (previousLease != null) {
            previousLease.close();
        }
        CompletableFuture<Void> previous = closingRunners.get(graph.jobId());
        if (previous == null) {
            runner.start();
        } else {
            LOG.info("Job {}: waiting for the previous runner's tasks to end before joining the job's election", graph.jobId());
            previous.whenCompleteAsync((ignored, error) -> {
                if (runners.get(graph.jobId()) == runner && !closed) {
                    runner.start();
                }
            }, mainThread);
        }
        runner.resultFuture().whenCompleteAsync((result, error) -> {
            if (runners.get(graph.jobId()) != runner) {
                return;
            }
            runner.requestJobDetails().whenCompleteAsync((details, e) -> {
                runners.remove(graph.jobId());
                // leaves the election; the job master has already ended; then the job's class loader may close
                releaseLeaseAfter(graph.jobId(), runner.close());
                if (result != null) {
                    finished.put(graph.jobId(), result);
                    finishedDetails.put(graph.jobId(), details != null ? details : detailsOf(result));
                    LOG.info("Job '{}' ({}) ended {}", graph.name(), graph.jobId(), result.status());
                    CompletableFuture<JobResult> waiter = resultWaiters.remove(graph.jobId());
                    if (waiter != null) {
                        waiter.complete(result);
                    }
                }
            }, mainThread);
        }, mainThread);
    }

    @Override
    public CompletableFuture<Optional<JobGraph>> requestJobGraph(JobId jobId) {
        return CompletableFuture.supplyAsync(() -> Optional.ofNullable(runners.get(jobId)).map(JobManagerRunner::jobGraph),
                mainThread);
    }

    @Override
    public CompletableFuture<List<JobSummary>> listJobs() {
        return CompletableFuture.supplyAsync(() -> {
            List<JobSummary> out = new ArrayList<>();
            runners.values().forEach(r -> out.add(new JobSummary(r.jobId(), r.jobGraph().name(), r.status(),
                    r.startTimeMillis(), r.lastTransitionMillis(), r.health())));
            graphsBeingRead.forEach(id -> out.add(new JobSummary(id, null, JobStatus.INITIALIZING, startMillis, startMillis)));
            finished.values().forEach(r -> out.add(finishedSummary(r)));
            return out;
        }, mainThread);
    }

    private JobSummary finishedSummary(JobResult r) {
        JobDetails d = finishedDetails.get(r.jobId());
        long start = d != null && !d.transitions().isEmpty() ? d.transitions().get(0).timestampMillis() : -1;
        return new JobSummary(r.jobId(), r.jobName(), r.status(), start, r.endTimestampMillis());
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
                GraphReadFailure failure = graphReadFailures.get(jobId);
                if (failure != null) {
                    long now = services.clock().currentTimeMillis();
                    return CompletableFuture.completedFuture(placeholder(jobId, "reading the job graph (attempt "
                            + failure.attempt() + " failed: " + failure.error() + "; retrying; cancel the job to stop,"
                            + " its checkpoints are kept)", failure.attempt(), failure.error(),
                            Math.max(0, failure.nextRetryAtMillis() - now)));
                }
                return CompletableFuture.completedFuture(placeholder(jobId, "reading the job graph"));
            }
            if (listingJobs) {
                return CompletableFuture.completedFuture(placeholder(jobId,
                        "the job manager is recovering its list of jobs; this job may or may not be among them"));
            }
            if (leaderSession == null) {
                Optional<String> leader = leaderRetrieval.currentLeader();
                if (!closed && (leader.isEmpty() || leader.get().equals(id()))) {
                    // No other leader: this job manager is about to lead and recover the stored jobs, so
                    // an id it does not know yet may well be one of them.
                    return CompletableFuture.completedFuture(placeholder(jobId,
                            "the job manager is waiting for dispatcher leadership before recovering its jobs;"
                                    + " this job may or may not be among them"));
                }
                return CompletableFuture.<JobDetails>failedFuture(new UnknownJobException(jobId, standbyMessage("ask")));
            }
            return CompletableFuture.<JobDetails>failedFuture(new UnknownJobException(jobId));
        }, mainThread).thenCompose(f -> f);
    }

    private JobDetails placeholder(JobId jobId, String phase) {
        return placeholder(jobId, phase, 0, null, 0);
    }

    private JobDetails placeholder(JobId jobId, String phase, int attempt, String lastError, long nextRetryMillis) {
        long now = services.clock().currentTimeMillis();
        return new JobDetails(jobId, null, JobStatus.INITIALIZING, List.of(new JobStatusTransition(JobStatus.INITIALIZING, startMillis)),
                List.of(), CheckpointStats.NONE, 0, null,
                new RecoveryStatus(phase, attempt, -1, 0, now - startMillis, lastError, nextRetryMillis, List.of()));
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
            if (graphsBeingRead.contains(jobId) && leaderSession != null) {
                // Ends CANCELED once the read in flight (if any) returns; a read waiting for its retry ends now.
                if (cancelledWhileReading.add(jobId) && graphReadFailures.containsKey(jobId)) {
                    endCancelledWhileReading(jobId, null, 1, leaderSession);
                }
                return CompletableFuture.completedFuture(Acknowledge.INSTANCE);
            }
            if (graphsBeingRead.contains(jobId) || listingJobs) {
                return CompletableFuture.<Acknowledge>failedFuture(new IllegalStateException("Job " + jobId
                        + " is still being recovered by this job manager (its graph is being read); retry the cancel in a moment"));
            }
            if (leaderSession == null) {
                return CompletableFuture.<Acknowledge>failedFuture(new UnknownJobException(jobId, standbyMessage("cancel at")));
            }
            return CompletableFuture.<Acknowledge>failedFuture(new UnknownJobException(jobId));
        }, mainThread).thenCompose(f -> f);
    }

    /**
     * Deletes the retained checkpoints of an ended job now. Refused ({@link IllegalStateException}) while
     * the job runs or is being recovered, or a running job was started from its checkpoints; a standby
     * names the leader.
     */
    @Override
    public CompletableFuture<io.sluice.protocol.CheckpointsDeletion> deleteCheckpoints(JobId jobId) {
        return CompletableFuture.supplyAsync(() -> {
            JobManagerRunner runner = runners.get(jobId);
            if (runner != null) {
                return CompletableFuture.<io.sluice.protocol.CheckpointsDeletion>failedFuture(new IllegalStateException(
                        "Job " + jobId + " is " + runner.status() + ": the checkpoints of a job that has not ended are"
                                + " never deleted. Cancel it first (sluice cancel " + jobId + "), then delete them."));
            }
            if (graphsBeingRead.contains(jobId) || submissionsInFlight.contains(jobId)) {
                return CompletableFuture.<io.sluice.protocol.CheckpointsDeletion>failedFuture(new IllegalStateException(
                        "Job " + jobId + " is being recovered by this job manager and has not ended; its checkpoints"
                                + " are never deleted while it may run. Cancel it first, then delete them."));
            }
            JobResult result = finished.get(jobId);
            if (result == null) {
                return CompletableFuture.<io.sluice.protocol.CheckpointsDeletion>failedFuture(leaderSession == null
                        ? new UnknownJobException(jobId, standbyMessage("delete checkpoints at"))
                        : new UnknownJobException(jobId));
            }
            return janitor.deleteNow(result);
        }, mainThread).thenCompose(f -> f);
    }

    @Override
    public CompletableFuture<JobResult> requestJobResult(JobId jobId) {
        return CompletableFuture.supplyAsync(() -> {
            if (finished.containsKey(jobId)) {
                return CompletableFuture.completedFuture(finished.get(jobId));
            }
            if (closed) {
                return CompletableFuture.<JobResult>failedFuture(new UnknownJobException(jobId,
                        "The job manager " + id() + " is shutting down; ask the dispatcher leader"));
            }
            if (runners.containsKey(jobId) || graphsBeingRead.contains(jobId) || submissionsInFlight.contains(jobId)
                    || listingJobs || leaderSession == null) {
                // Running or being recovered here, or not known yet (listing, or a standby that may lead
                // later): completed when the job ends here, or failed if the next listing does not know it.
                // The same future survives a job runner being replaced across a dispatcher leadership change.
                return resultWaiters.computeIfAbsent(jobId, k -> new CompletableFuture<>()).thenApply(r -> r);
            }
            return CompletableFuture.<JobResult>failedFuture(new UnknownJobException(jobId));
        }, mainThread).thenCompose(f -> f);
    }

    /**
     * Leaves the dispatcher election (a standby takes over) and all job elections, and suspends the
     * running jobs (they stay stored for the next leader). Pending result requests fail.
     */
    public CompletableFuture<Void> close() {
        return CompletableFuture.supplyAsync(() -> {
            closed = true;
            leading = false;
            leadershipListener.run();
            leaderSession = null;
            janitor.notLeading();
            if (dispatcherElection != null) {
                dispatcherElection.close();
            }
            resultWaiters.forEach((id, waiter) -> waiter.completeExceptionally(new UnknownJobException(id,
                    "The job manager " + id() + " stopped before the job ended here; ask the dispatcher leader")));
            resultWaiters.clear();
            Collection<JobManagerRunner> all = List.copyOf(runners.values());
            return CompletableFuture.allOf(all.stream().map(r -> {
                CompletableFuture<Void> done = r.close();
                releaseLeaseAfter(r.jobId(), done);
                return done;
            }).toArray(CompletableFuture[]::new));
        }, mainThread).thenCompose(f -> f);
    }
}
