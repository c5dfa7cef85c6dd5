package io.sluice.jobmaster;

import io.sluice.checkpoint.CheckpointException;
import io.sluice.checkpoint.TaskStateHandle;
import io.sluice.checkpoint.coordinator.CheckpointCoordinator;
import io.sluice.graph.JobGraph;
import io.sluice.graph.JobId;
import io.sluice.job.ExecutionAttemptId;
import io.sluice.job.ExecutionState;
import io.sluice.job.JobResult;
import io.sluice.job.JobStatus;
import io.sluice.jobmaster.deployment.DeploymentRound;
import io.sluice.jobmaster.deployment.SlotAssignment;
import io.sluice.jobmaster.deployment.TaskDeployer;
import io.sluice.jobmaster.deployment.TaskReport;
import io.sluice.jobmaster.lifecycle.FailoverDecision;
import io.sluice.jobmaster.lifecycle.TaskFailure;
import io.sluice.protocol.JobDetails;
import io.sluice.protocol.JobHealth;
import io.sluice.protocol.JobMasterGateway;
import io.sluice.protocol.JobStatusTransition;
import io.sluice.protocol.TaskExecutionState;
import io.sluice.rpc.Acknowledge;
import io.sluice.rpc.MainThreadExecutor;
import io.sluice.rpc.remote.FencedGateway;
import io.sluice.slots.TaskExecutorLostException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one job for as long as this job manager leads it: deploys its tasks, restarts them after
 * failures, and drives checkpoints.
 *
 * <p>Threading: all state lives on {@code mainThread}; gateway methods hop there. Nothing here
 * blocks: checkpoint I/O goes through the {@link CheckpointCoordinator} to the I/O executor.
 *
 * <p>The work is done by parts, each a class of its own: deployment rounds ({@link TaskDeployer}),
 * the slots and the wait for them ({@link SlotAssignment}), the failover policy ({@link
 * FailoverPolicy}) with the restore fallback ({@link RestoreFallback}) and crash-loop detection
 * ({@link JobHealthMonitor}), the details ({@link JobDetailsRequests}), the checkpoint coordinator's
 * view of the job ({@link JobCheckpointContext}) and the fencing of remote calls ({@link
 * LeaderSessionFence}). This class is the gateway and routes events to them.
 */
public final class JobMaster implements JobMasterGateway, FencedGateway {
    private static final Logger LOG = LoggerFactory.getLogger(JobMaster.class);

    private final JobGraph jobGraph;
    private final JobMasterServices services;
    private final MainThreadExecutor mainThread;
    private final LeaderSessionFence fence;
    private final CheckpointCoordinator checkpointCoordinator;
    private final SlotAssignment slots;
    private final TaskDeployer deployer;
    private final JobFailures failures;
    private final JobHealthMonitor healthMonitor;
    private final RestoreFallback restoreFallback;
    private final FailoverPolicy failover;
    private final JobDetailsRequests details;
    private final List<JobStatusTransition> transitions = new ArrayList<>();
    private final CompletableFuture<JobResult> resultFuture = new CompletableFuture<>();
    private final Consumer<JobStatus> statusListener;

    /** Written on the main thread only; volatile so that {@link #health()} can read it from any thread. */
    private volatile JobStatus status;
    private MainThreadExecutor.ScheduledTask scheduledRestart;

    public JobMaster(JobGraph jobGraph, JobMasterServices services, MainThreadExecutor mainThread) {
        this(jobGraph, services, mainThread, status -> { });
    }

    /**
     * @param statusListener told of every status change, on this job master's main thread; must not block
     */
    public JobMaster(JobGraph jobGraph, JobMasterServices services, MainThreadExecutor mainThread,
                     Consumer<JobStatus> statusListener) {
        this.statusListener = statusListener;
        this.jobGraph = jobGraph;
        this.services = services;
        this.mainThread = mainThread;
        this.fence = new LeaderSessionFence(services.writesAllowed());
        this.slots = new SlotAssignment(jobGraph, services.slots(), services.slotPool(), mainThread);
        this.checkpointCoordinator = new CheckpointCoordinator(jobGraph.jobId(), jobGraph.config(),
                services.checkpointStorage(), services.checkpointStore(), services.checkpointIdCounter(),
                mainThread, services.ioExecutor(), services.clock(),
                new JobCheckpointContext(() -> status, this::currentRound, this::onGlobalFailure),
                services.writesAllowed());
        this.failures = new JobFailures(mainThread, services.clock());
        this.deployer = new TaskDeployer(jobGraph, slots, services.checkpointStore(), checkpointCoordinator,
                mainThread, this, failures::restarts,
                round -> services.shuffleMaster().releaseDeployment(jobGraph.jobId(), round), this::onTaskStateChange);
        this.restoreFallback = new RestoreFallback(jobGraph.jobId(), services.checkpointStore(), services.ioExecutor(),
                mainThread, jobGraph.config().startWithoutCheckpointAllowed());
        this.healthMonitor = new JobHealthMonitor(jobGraph.jobId(), jobGraph.config(), services.checkpointStore(),
                services.clock());
        this.failover = new FailoverPolicy(jobGraph, services.restartStrategy(), healthMonitor, restoreFallback,
                checkpointCoordinator, failures, mainThread);
        JobDetailsAssembler assembler = new JobDetailsAssembler(jobGraph, () -> status, () -> transitions,
                deployer::current, slots, checkpointCoordinator, failures, healthMonitor);
        this.details = new JobDetailsRequests(jobGraph.jobId(), assembler, slots, mainThread, services.clock(),
                () -> status.isTerminal());
        this.status = JobStatus.CREATED;
        transitions.add(new JobStatusTransition(JobStatus.CREATED, services.clock().currentTimeMillis()));
    }

    public JobId jobId() {
        return jobGraph.jobId();
    }

    /**
     * Fences calls that reach this job master over RPC (it is passed by reference to task executors):
     * they must carry {@code session}, the job leader session it runs under, and are refused once
     * that session no longer leads. Set by the job manager runner before {@link #start()}; any thread.
     */
    public void fenceRemoteCallsWith(UUID session) {
        fence.fenceWith(session);
    }

    /** The leader session while it still leads ({@code writesAllowed}), else {@code null}. Any thread; from memory. */
    @Override
    public UUID fencingToken() {
        return fence.token();
    }

    /** Deploys all tasks, restoring from the latest completed checkpoint if there is one. Main thread. */
    public void start() {
        mainThread.assertRunningInMainThread();
        if (status != JobStatus.CREATED) {
            return;
        }
        slots.listen(this::onTaskExecutorLost, this::onSlotsAdded);
        if (!slots.tryAllocate(status)) {
            return; // waits in CREATED; onSlotsAdded starts it
        }
        deployer.deployAll();
        transitionTo(JobStatus.RUNNING, EnumSet.of(JobStatus.CREATED));
        checkpointCoordinator.start();
    }

    /**
     * Completes once the job is terminal under this job master and all its tasks have ended:
     * FINISHED, FAILED, CANCELED, or SUSPENDED (leadership lost; the status changes at once, the
     * future completes when the cancelled tasks are gone). Completes on the main thread.
     */
    public CompletableFuture<JobResult> resultFuture() {
        return resultFuture;
    }

    /**
     * Leadership was lost: stop checkpointing, cancel the tasks, switch to SUSPENDED at once (no
     * further checkpoint is started or completed); {@link #resultFuture()} completes once the tasks ended.
     */
    public void suspend(String reason) {
        mainThread.assertRunningInMainThread();
        if (status.isTerminal()) {
            return;
        }
        LOG.info("Suspending job {} ({}): {}", jobGraph.jobId(), jobGraph.name(), reason);
        checkpointCoordinator.stop("the job is suspended");
        cancelScheduledRestart();
        deployer.cancelAll();
        transitionTo(JobStatus.SUSPENDED, null);
        checkAllEnded();
    }

    // ---------------------------------------------------------------- gateway

    @Override
    public CompletableFuture<Acknowledge> updateTaskExecutionState(TaskExecutionState state) {
        return CompletableFuture.supplyAsync(() -> {
            onTaskStateChange(state);
            return Acknowledge.INSTANCE;
        }, mainThread);
    }

    @Override
    public void acknowledgeCheckpoint(ExecutionAttemptId task, long checkpointId, TaskStateHandle state) {
        mainThread.execute(() -> {
            if (deployer.current().contains(task)) {
                checkpointCoordinator.acknowledgeCheckpoint(task, checkpointId, state);
            }
        });
    }

    @Override
    public void declineCheckpoint(ExecutionAttemptId task, long checkpointId, Throwable reason) {
        mainThread.execute(() -> {
            if (deployer.current().contains(task)) {
                checkpointCoordinator.declineCheckpoint(task, checkpointId, reason);
            }
        });
    }

    @Override
    public CompletableFuture<JobDetails> requestJobDetails() {
        return CompletableFuture.supplyAsync(details::request, mainThread).thenCompose(f -> f);
    }

    @Override
    public CompletableFuture<Acknowledge> cancel() {
        return CompletableFuture.supplyAsync(() -> {
            cancelJob();
            return Acknowledge.INSTANCE;
        }, mainThread);
    }

    /** The job's details without task counters; main thread only (used when the job already ended). */
    public JobDetails currentDetails() {
        return details.current();
    }

    // ---------------------------------------------------------------- lifecycle

    private DeploymentRound currentRound() {
        return deployer.current();
    }

    private void cancelJob() {
        if (status.isTerminal() || status == JobStatus.CANCELLING) {
            return;
        }
        LOG.info("Cancelling job {} ({})", jobGraph.jobId(), jobGraph.name());
        checkpointCoordinator.stop("the job is cancelled");
        cancelScheduledRestart();
        transitionTo(JobStatus.CANCELLING, null);
        deployer.cancelAll();
        checkAllEnded();
    }

    private void onTaskStateChange(TaskExecutionState update) {
        TaskReport report = deployer.current().apply(update);
        if (report == null) {
            return;
        }
        if (report.stoppedRestoring()) {
            deployer.restoreEnded();
        }
        if (report.allRestored()) {
            restoreFallback.restoreSucceeded();
        }
        ExecutionAttemptId id = update.attemptId();
        switch (update.state()) {
            case FAILED -> {
                if (status == JobStatus.RUNNING) {
                    handleTaskFailure(TaskFailure.ofTask(update.failure() != null ? update.failure()
                                    : new IllegalStateException("Task " + id + " failed without a cause"),
                            jobGraph.vertex(id.vertexId()).name(),
                            report.wasRestoring() ? deployer.current().restoreCheckpointId() : -1));
                } else {
                    checkAllEnded();
                }
            }
            case FINISHED -> {
                // Finished without acknowledging the pending checkpoint: it is part of it as finished.
                checkpointCoordinator.taskFinished(id, TaskStateHandle.finished(id.vertexId(), id.subtaskIndex()));
                if (status == JobStatus.RUNNING && deployer.current().allFinished()) {
                    checkpointCoordinator.stop("the job finished");
                    transitionTo(JobStatus.FINISHED, EnumSet.of(JobStatus.RUNNING));
                    deployer.release();
                    finish(JobStatus.FINISHED);
                } else {
                    checkAllEnded();
                }
            }
            case CANCELED -> {
                if (status == JobStatus.RUNNING && report.before() != ExecutionState.CANCELING) {
                    // Not cancelled by this job master: its task executor gave it up (it lost its job manager).
                    handleTaskFailure(TaskFailure.global(new IllegalStateException("Task " + id + " was cancelled by"
                            + " task executor " + report.execution().taskExecutor().id() + " without the job master"
                            + " asking (the task executor lost its job manager or shut down)")));
                } else {
                    checkAllEnded();
                }
            }
            default -> { }
        }
    }

    private void onGlobalFailure(Throwable cause) {
        if (status == JobStatus.RUNNING) {
            handleTaskFailure(TaskFailure.global(cause));
        }
    }

    private void handleTaskFailure(TaskFailure failure) {
        FailoverDecision decision = failover.onFailure(failure, deployer.current().restoreCheckpointId());
        if (decision == FailoverDecision.RESTART) {
            transitionTo(JobStatus.RESTARTING, EnumSet.of(JobStatus.RUNNING));
        } else {
            checkpointCoordinator.stop("the job is failing");
            transitionTo(JobStatus.FAILING, EnumSet.of(JobStatus.RUNNING));
        }
        deployer.cancelAll();
        checkAllEnded();
    }

    /** Called after any task reached a terminal state while the job winds down. */
    private void checkAllEnded() {
        if (!deployer.current().allEnded()) {
            return;
        }
        switch (status) {
            case RESTARTING -> {
                if (scheduledRestart == null) {
                    deployer.release();
                    scheduledRestart = mainThread.schedule(this::restart, failover.restartDelay());
                }
            }
            case FAILING -> {
                transitionTo(JobStatus.FAILED, EnumSet.of(JobStatus.FAILING));
                deployer.release();
                finish(JobStatus.FAILED);
            }
            case SUSPENDED -> {
                deployer.release();
                finish(JobStatus.SUSPENDED);
            }
            case CANCELLING -> {
                transitionTo(JobStatus.CANCELED, EnumSet.of(JobStatus.CANCELLING));
                deployer.release();
                finish(JobStatus.CANCELED);
            }
            default -> { }
        }
    }

    private void restart() {
        scheduledRestart = null;
        if (status != JobStatus.RESTARTING) {
            return;
        }
        if (!restoreFallback.readyToDeploy(this::restartAfterFallback, this::waitForRepairedState,
                fallbackEvent -> failures.setLastFailure(new CheckpointException(fallbackEvent)))) {
            return;
        }
        if (!slots.tryAllocate(status)) {
            return; // waits in RESTARTING; onSlotsAdded restarts it
        }
        deployer.deployAll();
        transitionTo(JobStatus.RUNNING, EnumSet.of(JobStatus.RESTARTING));
    }

    /** The fallback's storage work finished (or needs a retry): restart if still restarting. */
    private void restartAfterFallback(Duration delay) {
        if (status != JobStatus.RESTARTING || scheduledRestart != null) {
            return;
        }
        if (delay.isZero()) {
            restart();
        } else {
            scheduledRestart = mainThread.schedule(this::restart, delay);
        }
    }

    /**
     * No retained checkpoint has usable state: the job does not end. It stays RESTARTING with its
     * graph and checkpoints, {@code message} as its failure, and tries again after {@code retryIn}
     * (or is cancelled meanwhile).
     */
    private void waitForRepairedState(String message, Duration retryIn) {
        if (status != JobStatus.RESTARTING || scheduledRestart != null) {
            return;
        }
        failures.setLastFailure(new CheckpointException(message));
        healthMonitor.restoreWaiting(message);
        scheduledRestart = mainThread.schedule(this::restart, retryIn);
    }

    /** The dynamic pool got slots: a job waiting for them tries again. */
    private void onSlotsAdded() {
        if (slots.waitingFor() == null) {
            return;
        }
        if (status == JobStatus.CREATED) {
            start();
        } else if (status == JobStatus.RESTARTING && scheduledRestart == null) {
            restart();
        }
    }

    /**
     * A task executor left the dynamic pool. Tasks of the current deployment there are gone without
     * a report: they count as failed, and a running job fails over.
     */
    private void onTaskExecutorLost(String taskExecutorId, String reason) {
        // A suspended job master still waits for its tasks: a lost task executor's tasks count as ended (its
        // task manager cancels them before it joins another leader, and its reports are fenced off from here).
        if (status.isTerminal() && status != JobStatus.SUSPENDED) {
            return;
        }
        slots.taskExecutorLost(taskExecutorId);
        DeploymentRound.LostTasks lost = deployer.current().markLost(taskExecutorId);
        if (lost.count() == 0) {
            return;
        }
        LOG.warn("Job {} ({}): {} task(s) lost with task executor {}: {}", jobGraph.jobId(), jobGraph.name(),
                lost.count(), taskExecutorId, reason);
        if (lost.wereRestoring()) {
            deployer.restoreEnded();
        }
        if (status == JobStatus.RUNNING) {
            handleTaskFailure(TaskFailure.global(new TaskExecutorLostException(taskExecutorId, reason)));
        } else {
            checkAllEnded();
        }
    }

    private void cancelScheduledRestart() {
        if (scheduledRestart != null) {
            scheduledRestart.cancel();
            scheduledRestart = null;
        }
    }

    private void finish(JobStatus terminal) {
        slots.stopListening();
        details.captureFinal();
        Throwable failure = terminal == JobStatus.FAILED ? failures.lastFailure() : null;
        resultFuture.complete(JobResult.of(jobGraph.jobId(), jobGraph.name(), terminal,
                services.clock().currentTimeMillis(), failure));
    }

    private void transitionTo(JobStatus next, Set<JobStatus> allowedFrom) {
        if (allowedFrom != null && !allowedFrom.contains(status)) {
            throw new IllegalStateException("Job " + jobGraph.jobId() + ": illegal transition " + status + " -> " + next);
        }
        LOG.info("Job {} ({}) switched from {} to {}", jobGraph.jobId(), jobGraph.name(), status, next);
        status = next;
        transitions.add(new JobStatusTransition(next, services.clock().currentTimeMillis()));
        statusListener.accept(next);
    }

    /**
     * A crash loop, or checkpoints older than {@code checkpoints.stale-after}, for the job list. Any
     * thread: from memory, without a hop to the main thread.
     */
    public JobHealth health() {
        return healthMonitor.health(status);
    }

    /** Milliseconds since the latest completed checkpoint (or this job master's start); 0 when not checkpointing. Any thread. */
    public long checkpointAgeMillis() {
        return healthMonitor.checkpointAgeMillis(status);
    }

    /** The details at the moment the job ended under this job master, or {@code null} before. Any thread. */
    public JobDetails finalDetails() {
        return details.finalDetails();
    }

    /** For tests: the status as seen on the main thread. */
    public JobStatus status() {
        mainThread.assertRunningInMainThread();
        return status;
    }

    /** The checkpoint coordinator; main thread only. */
    public CheckpointCoordinator checkpointCoordinator() {
        return checkpointCoordinator;
    }
}
