package io.sluice.jobmaster;

import io.sluice.checkpoint.CheckpointIdCounter;
import io.sluice.checkpoint.CheckpointStats;
import io.sluice.checkpoint.CheckpointStorage;
import io.sluice.checkpoint.CompletedCheckpoint;
import io.sluice.checkpoint.CompletedCheckpointStore;
import io.sluice.cluster.SlotPool;
import io.sluice.graph.JobGraph;
import io.sluice.graph.JobId;
import io.sluice.ha.CheckpointRecoveryFactory;
import io.sluice.ha.HighAvailabilityServices;
import io.sluice.ha.LeaderContender;
import io.sluice.ha.LeaderElection;
import io.sluice.restart.RestartStrategies;
import io.sluice.rpc.Acknowledge;
import io.sluice.rpc.DedicatedMainThreadExecutor;
import io.sluice.rpc.MainThreadExecutor;
import io.sluice.taskexecutor.TaskExecutorGateway;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one job on this job manager whenever it holds the job's leadership.
 *
 * <p>Lifecycle: joins the job's leader election. On a grant (session S) it recovers on the I/O
 * executor, once for the session: checks the job result store (a finished job is never run
 * again), creates the recovered checkpoint store (only the latest checkpoint's metadata is read)
 * and the id counter, retrying storage errors with backoff and jitter. Then it starts a
 * {@link JobMaster} on the job master's own main thread. Until then it answers status itself:
 * {@code INITIALIZING} with {@link RecoveryStatus} (attempt, pointers, metadata loaded, time,
 * last error). On revocation it cancels the recovery in flight (interrupting a hung storage call)
 * and suspends the job master; writes of session S are fenced by the election.
 *
 * <p>Threading: everything here runs on the owner's main thread (the Dispatcher's), given as
 * {@code mainThread}; election callbacks are handed over to it. Blocking work runs on the I/O
 * executor, and each completion re-checks that its session is still the current one.
 */
public final class JobManagerRunner implements LeaderContender {
    private static final Logger LOG = LoggerFactory.getLogger(JobManagerRunner.class);
    private static final long DETAILS_MAX_AGE_NANOS = 100_000_000L;

    private final JobGraph jobGraph;
    private final JobManagerServices services;
    private final MainThreadExecutor mainThread;
    private final CompletableFuture<JobResult> resultFuture = new CompletableFuture<>();
    private final List<JobStatusTransition> transitions = new ArrayList<>();

    private LeaderElection election;
    /** The current leader session, or null while not leading. */
    private UUID session;
    private RecoveryProgress progress;
    private Future<?> recoveryInFlight;
    private MainThreadExecutor.ScheduledTask retry;
    private int attempt;
    private JobMaster jobMaster;
    private DedicatedMainThreadExecutor jobMasterThread;
    private volatile JobStatus status = JobStatus.INITIALIZING;
    private String failureMessage;
    private JobDetails finalDetails;
    private boolean closed;
    /**
     * The running job's last details, served for a burst of status queries without a hop to the job
     * master's thread; used only while younger than {@link #DETAILS_MAX_AGE_NANOS} and while its
     * status is still the job's latest (a status change pushed by the job master invalidates it).
     */
    private JobDetails cachedDetails;
    private JobMaster cachedFrom;
    private long cachedAtNanos;
    private CompletableFuture<Void> closeFuture;
    /** How the current job master's recovery went (shown with the running job's details). */
    private RecoveryStatus lastRecovery;
    /** This job's meters; removed when the job ends here or this runner is closed. */
    private final io.sluice.metrics.JobMetrics metrics;

    public JobManagerRunner(JobGraph jobGraph, JobManagerServices services, MainThreadExecutor mainThread) {
        this.jobGraph = jobGraph;
        this.services = services;
        this.mainThread = mainThread;
        this.progress = new RecoveryProgress(services.clock());
        transitions.add(new JobStatusTransition(JobStatus.INITIALIZING, services.clock().currentTimeMillis()));
        this.metrics = new io.sluice.metrics.JobMetrics(services.checkpointStorages().meterRegistry(),
                jobGraph.jobId(), jobGraph.name(), JobStatus.INITIALIZING, services.clock());
        resultFuture.whenComplete((result, error) -> metrics.close());
    }

    public JobId jobId() {
        return jobGraph.jobId();
    }

    public JobGraph jobGraph() {
        return jobGraph;
    }

    /** The latest known status; may be read from any thread. */
    public JobStatus status() {
        return status;
    }

    /** Wall-clock time of the first transition (when this runner was created). Main thread. */
    public long startTimeMillis() {
        mainThread.assertRunningInMainThread();
        return transitions.get(0).timestampMillis();
    }

    /** Wall-clock time of the latest status change seen by this runner. Main thread. */
    public long lastTransitionMillis() {
        mainThread.assertRunningInMainThread();
        return transitions.get(transitions.size() - 1).timestampMillis();
    }

    /** Completes on the main thread when the job is globally terminal (FINISHED, FAILED, CANCELED). */
    public CompletableFuture<JobResult> resultFuture() {
        return resultFuture;
    }

    /** Joins the leader election. Main thread. */
    public void start() {
        mainThread.assertRunningInMainThread();
        election = services.ha().jobLeaderElection(jobGraph.jobId(), services.contenderId());
        election.startLeaderElection(this);
    }

    @Override
    public void grantLeadership(UUID leaderSessionId) {
        mainThread.execute(() -> onGrant(leaderSessionId));
    }

    @Override
    public void revokeLeadership() {
        mainThread.execute(this::onRevoke);
    }

    @Override
    public String description() {
        return "job manager runner of job " + jobGraph.jobId() + " on " + services.contenderId();
    }

    private void onGrant(UUID s) {
        if (closed || resultFuture.isDone()) {
            return;
        }
        LOG.info("{} gained leadership (session {}); recovering", description(), s);
        session = s;
        attempt = 0;
        progress = new RecoveryProgress(services.clock());
        metrics.recoveryStarted();
        startRecoveryAttempt(s);
    }

    private void onRevoke() {
        if (session == null) {
            return;
        }
        LOG.info("{} lost leadership (session {})", description(), session);
        session = null;
        cancelRecovery();
        metrics.recoveryAbandoned();
        progress = new RecoveryProgress(services.clock());
        if (jobMaster != null) {
            JobMaster jm = jobMaster;
            jobMasterThread.execute(() -> jm.suspend("leadership was revoked"));
        } else {
            setStatus(JobStatus.INITIALIZING);
        }
    }

    private void cancelRecovery() {
        if (recoveryInFlight != null) {
            recoveryInFlight.cancel(true);
            recoveryInFlight = null;
        }
        if (retry != null) {
            retry.cancel();
            retry = null;
        }
    }

    /** What one successful recovery attempt produced. */
    private record Recovered(JobResult alreadyFinished, CompletedCheckpointStore store, CheckpointIdCounter counter,
                             CheckpointStorage storage) {
    }

    private void startRecoveryAttempt(UUID s) {
        attempt++;
        metrics.recoveryAttempt();
        RecoveryProgress p = progress;
        p.startAttempt(attempt);
        CompletableFuture<Recovered> result = new CompletableFuture<>();
        recoveryInFlight = services.ioExecutor().submit(() -> {
            try {
                result.complete(recover(s, p));
            } catch (Throwable t) {
                result.completeExceptionally(t);
            }
        });
        result.whenCompleteAsync((recovered, error) -> onRecoveryAttemptDone(s, p, recovered, error), mainThread);
    }

    /** One recovery attempt, on an I/O thread. */
    private Recovered recover(UUID s, RecoveryProgress p) throws Exception {
        JobId id = jobGraph.jobId();
        p.phase("checking the job result store");
        var finished = services.ha().jobResultStore().result(id);
        if (finished.isPresent()) {
            return new Recovered(finished.get(), null, null, null);
        }
        CheckpointStorage storage = services.checkpointStorages().forLocation(jobGraph.config().checkpointDir());
        CheckpointRecoveryFactory factory = services.ha().checkpointRecoveryFactory();
        p.phase("recovering checkpoints from " + storage.location());
        CompletedCheckpointStore store = factory.createRecoveredCompletedCheckpointStore(id,
                jobGraph.config().retainedCheckpoints(), storage, election, s,
                jobGraph.config().startWithoutCheckpointAllowed(), p);
        if (Thread.interrupted()) {
            throw new InterruptedException("recovery cancelled");
        }
        long nextId = store.latest().map(CompletedCheckpoint::checkpointId).orElse(0L) + 1;
        p.phase("creating the checkpoint id counter");
        CheckpointIdCounter counter = factory.createCheckpointIdCounter(id, nextId);
        p.phase("starting the job master");
        return new Recovered(null, store, counter, storage);
    }

    private void onRecoveryAttemptDone(UUID s, RecoveryProgress p, Recovered recovered, Throwable error) {
        if (!s.equals(session) || closed || resultFuture.isDone()) {
            return; // revoked, cancelled or closed meanwhile: nothing of this session may act
        }
        recoveryInFlight = null;
        if (error != null) {
            Throwable cause = unwrap(error);
            if (cause instanceof InterruptedException || cause instanceof CancellationException) {
                return;
            }
            if (isPermanent(cause)) {
                LOG.error("{}: recovery failed permanently", description(), cause);
                failureMessage = JobResult.describe(cause);
                completeWithoutJobMaster(s, JobStatus.FAILED, cause);
                return;
            }
            Duration delay = services.recoveryBackoff().delayAfter(attempt, services.random());
            String message = describeStorageError(cause);
            p.failedAttempt(message, delay.toNanos());
            LOG.warn("{}: recovery attempt {} failed: {}; next attempt in {} ms", description(), attempt, message,
                    delay.toMillis());
            retry = mainThread.schedule(() -> {
                retry = null;
                if (s.equals(session)) {
                    startRecoveryAttempt(s);
                }
            }, delay);
            return;
        }
        if (recovered.alreadyFinished() != null) {
            LOG.info("{}: the job already ended ({}); it is not run again", description(), recovered.alreadyFinished().status());
            setStatus(recovered.alreadyFinished().status());
            resultFuture.complete(recovered.alreadyFinished());
            return;
        }
        startJobMaster(s, recovered);
    }

    /**
     * The error as a user should see it in status: the outermost message (which names the storage
     * location, the operation and the object), plus the root cause when that message lacks it.
     */
    static String describeStorageError(Throwable cause) {
        String outer = cause.getMessage() != null ? cause.getMessage() : cause.getClass().getName();
        Throwable root = cause;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        if (root != cause && root.getMessage() != null && !outer.contains(root.getMessage())) {
            return outer + " (caused by " + root.getClass().getSimpleName() + ": " + root.getMessage() + ")";
        }
        return outer;
    }

    private static boolean isPermanent(Throwable cause) {
        return cause instanceof io.sluice.ha.CheckpointRecoveryException
                || cause instanceof IllegalArgumentException
                || cause instanceof io.sluice.graph.InvalidJobException;
    }

    private void startJobMaster(UUID s, Recovered recovered) {
        lastRecovery = progress.snapshot();
        metrics.recoveryFinished();
        List<TaskExecutorGateway> slots;
        try {
            slots = services.slotPool().allocate(jobGraph.jobId(), jobGraph.requiredSlots());
        } catch (SlotPool.NotEnoughSlotsException e) {
            failureMessage = e.getMessage();
            completeWithoutJobMaster(s, JobStatus.FAILED, e);
            return;
        }
        JobMasterServices jmServices = new JobMasterServices(recovered.storage(), recovered.store(), recovered.counter(),
                services.shuffleMaster(), slots, services.ioExecutor(), services.clock(),
                RestartStrategies.create(jobGraph.config().restartStrategy(), services.clock(), services.random()),
                () -> election.hasLeadership(s));
        DedicatedMainThreadExecutor jmThread = new DedicatedMainThreadExecutor("jobmaster-" + jobGraph.jobId().value().substring(0, 8));
        AtomicReference<JobMaster> self = new AtomicReference<>();
        JobMaster jm = new JobMaster(jobGraph, jmServices, jmThread,
                st -> mainThread.execute(() -> {
                    // Only the current job master speaks for the job; a suspended one's late news is ignored.
                    if (jobMaster != null && jobMaster == self.get() && st != JobStatus.SUSPENDED) {
                        setStatus(st);
                    }
                }));
        self.set(jm);
        jobMaster = jm;
        jobMasterThread = jmThread;
        setStatus(JobStatus.CREATED);
        jmThread.execute(() -> {
            jm.checkpointCoordinator().setMetricsListener(metrics);
            jm.start();
        });
        jm.resultFuture().whenCompleteAsync((result, error) -> onJobMasterDone(s, jm, jmThread, recovered, result), mainThread);
    }

    private void onJobMasterDone(UUID s, JobMaster jm, DedicatedMainThreadExecutor jmThread, Recovered recovered,
                                 JobResult result) {
        if (jobMaster == jm) {
            jobMaster = null;
            jobMasterThread = null;
        }
        if (jobMaster == null) {
            services.slotPool().release(jobGraph.jobId()); // not while a newer job master uses them
        }
        jmThread.retire(); // late messages (task reports, status requests) still get answered
        if (closeFuture != null && jobMaster == null) {
            closeFuture.complete(null);
        }
        if (result.status() == JobStatus.SUSPENDED) {
            recovered.store().latest(); // nothing to clean: the next leader recovers from the same pointers
            if (session == null) {
                setStatus(JobStatus.INITIALIZING);
            }
            return;
        }
        failureMessage = result.failureMessage();
        JobDetails last = jm.finalDetails();
        finishGlobally(s, result, recovered.store());
        if (last != null) {
            List<JobStatusTransition> all = new ArrayList<>(transitions.subList(0, 1));
            all.addAll(last.transitions());
            finalDetails = new JobDetails(last.jobId(), last.name(), last.status(), all, last.vertices(),
                    last.checkpoints(), last.restarts(), last.failureMessage(), lastRecovery, last.restartHistory(),
                    last.recentFailures());
        }
    }

    /** Ends the job without a job master (cancelled or failed while recovering). */
    private void completeWithoutJobMaster(UUID s, JobStatus terminal, Throwable failure) {
        cancelRecovery();
        JobResult result = JobResult.of(jobGraph.jobId(), jobGraph.name(), terminal,
                services.clock().currentTimeMillis(), failure);
        finishGlobally(s, result, null);
    }

    /**
     * Records the result (fenced on the session) before removing the job graph and checkpoints,
     * so a later leader never re-runs a finished job; then completes the result future.
     */
    private void finishGlobally(UUID s, JobResult result, CompletedCheckpointStore store) {
        setStatus(result.status());
        finalDetails = initializingDetails(result.status());
        services.ioExecutor().execute(() -> {
            try {
                election.runIfLeader(s, () -> services.ha().jobResultStore().putResult(result));
                election.runIfLeader(s, () -> services.ha().jobGraphStore().removeJobGraph(jobGraph.jobId()));
                election.runIfLeader(s, () -> services.ha().jobJarStore().removeJobJar(jobGraph.jobId()));
                if (store != null) {
                    store.shutdown(result.status());
                }
            } catch (Exception e) {
                LOG.warn("{}: could not record the result or clean up: {}", description(), e.toString());
            }
            mainThread.execute(() -> resultFuture.complete(result));
        });
    }

    /** Cancels the job: forwarded to the job master, or ends recovery at once. Main thread. */
    public CompletableFuture<Acknowledge> cancel() {
        mainThread.assertRunningInMainThread();
        if (resultFuture.isDone() || status.isGloballyTerminal()) {
            return CompletableFuture.completedFuture(Acknowledge.INSTANCE);
        }
        if (session == null) {
            // Also while a job master of a lost session is still suspending: cancelling it would not stop the job.
            return CompletableFuture.failedFuture(new IllegalStateException("Job " + jobGraph.jobId()
                    + " is not led by this job manager (" + services.contenderId() + ") right now; cancel it on its leader"));
        }
        if (jobMaster != null) {
            return jobMaster.cancel();
        }
        LOG.info("{}: cancelled while {}", description(), progress.snapshot().phase());
        completeWithoutJobMaster(session, JobStatus.CANCELED, null);
        return CompletableFuture.completedFuture(Acknowledge.INSTANCE);
    }

    /** Answers at once while recovering; forwards to the job master once it runs. Main thread. */
    public CompletableFuture<JobDetails> requestJobDetails() {
        mainThread.assertRunningInMainThread();
        if (finalDetails != null) {
            return CompletableFuture.completedFuture(finalDetails);
        }
        if (jobMaster != null) {
            JobMaster jm = jobMaster;
            if (cachedDetails != null && cachedFrom == jm && cachedDetails.status() == status
                    && services.clock().nanoTime() - cachedAtNanos < DETAILS_MAX_AGE_NANOS) {
                return CompletableFuture.completedFuture(cachedDetails);
            }
            List<JobStatusTransition> before = List.copyOf(transitions.subList(0, 1));
            return jm.requestJobDetails().thenApplyAsync(d -> {
                List<JobStatusTransition> all = new ArrayList<>(before);
                all.addAll(d.transitions());
                JobDetails details = new JobDetails(d.jobId(), d.name(), d.status(), all, d.vertices(), d.checkpoints(),
                        d.restarts(), d.failureMessage(), lastRecovery, d.restartHistory(), d.recentFailures());
                if (jobMaster == jm) {
                    cachedDetails = details;
                    cachedFrom = jm;
                    cachedAtNanos = services.clock().nanoTime();
                }
                return details;
            }, mainThread);
        }
        return CompletableFuture.completedFuture(initializingDetails(status));
    }

    private JobDetails initializingDetails(JobStatus st) {
        return new JobDetails(jobGraph.jobId(), jobGraph.name(), st, transitions, List.of(), CheckpointStats.NONE, 0,
                failureMessage, st == JobStatus.INITIALIZING ? progress.snapshot() : null);
    }

    private void setStatus(JobStatus next) {
        if (status != next) {
            status = next;
            transitions.add(new JobStatusTransition(next, services.clock().currentTimeMillis()));
            metrics.statusChanged(next);
        }
    }

    /**
     * Job manager shutdown: suspends the job master and, once its tasks have ended, leaves the
     * election, so a standby never runs the job while this one's tasks still do. Main thread;
     * the returned future completes on it.
     */
    public CompletableFuture<Void> close() {
        mainThread.assertRunningInMainThread();
        if (closeFuture != null) {
            return closeFuture;
        }
        closed = true;
        closeFuture = new CompletableFuture<>();
        cancelRecovery();
        if (jobMaster != null) {
            JobMaster jm = jobMaster;
            jobMasterThread.execute(() -> jm.suspend("the job manager is shutting down"));
        } else {
            closeFuture.complete(null);
        }
        return closeFuture.whenComplete((ignored, error) -> {
            metrics.close();
            if (election != null) {
                election.close();
            }
        });
    }

    private static Throwable unwrap(Throwable t) {
        Throwable c = t;
        while (c instanceof CompletionException && c.getCause() != null) {
            c = c.getCause();
        }
        return c;
    }
}
