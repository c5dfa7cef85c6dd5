package io.sluice.jobmaster;

import io.sluice.checkpoint.StateRestoreException;
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
import io.sluice.jobmaster.lifecycle.JobLifecycle;
import io.sluice.jobmaster.lifecycle.TaskFailure;
import io.sluice.protocol.JobDetails;
import io.sluice.protocol.JobHealth;
import io.sluice.protocol.JobMasterGateway;
import io.sluice.protocol.JobStatusTransition;
import io.sluice.protocol.TaskExecutionState;
import io.sluice.rpc.Acknowledge;
import io.sluice.rpc.MainThreadExecutor;
import io.sluice.rpc.PublishingMainThreadExecutor;
import io.sluice.rpc.remote.FencedGateway;
import io.sluice.slots.SlotPool;
import io.sluice.slots.TaskExecutorLostException;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one job for as long as this job manager leads it: deploys its tasks, restarts them after
 * failures, and drives checkpoints. This class is the job's gateway: it hops every call onto the
 * main thread and hands it to the part that owns it.
 *
 * <ul>
 *   <li>{@link JobLifecycle}: the job's states (CREATED, waiting for slots, RUNNING, RESTARTING,
 *       falling back, FAILING, CANCELLING, SUSPENDED, the ends), one class each, and the one
 *       guarded transition method;</li>
 *   <li>{@link TaskDeployer} and {@link DeploymentRound}: deployment rounds and the tasks' states;
 *       {@link SlotAssignment}: the slots, and the wait for them on a dynamic pool;</li>
 *   <li>{@link FailoverPolicy}: restart or fail after a failure, with the {@link RestoreFallback}
 *       past unusable checkpoints and the {@link JobHealthMonitor} for crash loops;</li>
 *   <li>{@link CheckpointCoordinator}, which sees the job through {@link JobCheckpointContext}
 *       (also the path of completion notifications to the tasks);</li>
 *   <li>{@link JobDetailsRequests}: status, details and task counters; {@link LeaderSessionFence}:
 *       the fencing of remote calls.</li>
 * </ul>
 *
 * <p>Threading: all state lives on {@code mainThread}; gateway methods hop there, and every part
 * checks it. Nothing here blocks: checkpoint and restore I/O run on the I/O executor. After every
 * command on the main thread the job's details are published as one immutable snapshot
 * ({@link JobDetailsRequests}), which {@link #publishedDetails()} reads from any thread.
 *
 * <p>Failover is global: when a task fails, every task is cancelled, and once all have ended the
 * job is redeployed after the restart strategy's backoff, restoring from the latest completed
 * checkpoint held in memory by the {@code CompletedCheckpointStore}. A task that finds the state of
 * its restore checkpoint unusable ({@link StateRestoreException}) makes the job fall back to the
 * previous retained checkpoint, outside the restart budget; with none left the job stays
 * RESTARTING and retries slowly until the files are repaired or it is cancelled.
 *
 * <p>With a dynamic {@link SlotPool} ({@link JobMasterServices#slotPool()}) the job master takes its
 * slots from the pool before every deployment and waits while there are too few. A task executor
 * that leaves the pool with tasks of the current round fails the job over with a {@link
 * TaskExecutorLostException}; its tasks count as failed at once. A task cancelled by its task
 * executor without the job master asking (it lost its job manager) is a task failure too.
 */
public final class JobMaster implements JobMasterGateway, FencedGateway {
    private static final Logger LOG = LoggerFactory.getLogger(JobMaster.class);

    private final JobGraph jobGraph;
    private final MainThreadExecutor mainThread;
    private final LeaderSessionFence fence;
    private final SlotAssignment slots;
    private final CheckpointCoordinator checkpointCoordinator;
    private final JobFailures failures;
    private final TaskDeployer deployer;
    private final RestoreFallback restoreFallback;
    private final JobHealthMonitor healthMonitor;
    private final JobDetailsRequests details;
    private final JobLifecycle lifecycle;
    private final CompletableFuture<JobResult> resultFuture = new CompletableFuture<>();
    /** Where savepoints go when the request names no directory: {@code <checkpoints.dir>/savepoints}. */
    private final String defaultSavepointDirectory;

    public JobMaster(JobGraph jobGraph, JobMasterServices services, MainThreadExecutor mainThread) {
        this(jobGraph, services, mainThread, status -> { });
    }

    /**
     * @param statusListener told of every status change, on this job master's main thread; must not
     *                       block, nor change the job's state (such a transition is refused)
     */
    public JobMaster(JobGraph jobGraph, JobMasterServices services, MainThreadExecutor ownThread,
                     Consumer<JobStatus> statusListener) {
        this.jobGraph = jobGraph;
        // Every part gets this wrapper: after each command the details are published for status calls.
        MainThreadExecutor mainThread = new PublishingMainThreadExecutor(ownThread, this::publishDetails);
        this.mainThread = mainThread;
        this.fence = new LeaderSessionFence(services.writesAllowed());
        this.slots = new SlotAssignment(jobGraph, services.slots(), services.slotPool(), mainThread);
        this.checkpointCoordinator = new CheckpointCoordinator(jobGraph.jobId(), jobGraph.config(),
                services.checkpointStorage(), services.checkpointStore(), services.checkpointIdCounter(), mainThread,
                services.ioExecutor(), services.clock(),
                new JobCheckpointContext(this::status, this::currentRound, this::onGlobalFailure),
                services.writesAllowed());
        this.defaultSavepointDirectory = services.checkpointStorage().location() + "/savepoints";
        this.failures = new JobFailures(mainThread, services.clock());
        this.deployer = new TaskDeployer(jobGraph, slots, services.checkpointStore(), checkpointCoordinator,
                mainThread, this, failures::restarts,
                round -> services.shuffleMaster().releaseDeployment(jobGraph.jobId(), round), this::onTaskStateChange);
        this.restoreFallback = new RestoreFallback(jobGraph.jobId(), services.checkpointStore(), services.ioExecutor(),
                mainThread, jobGraph.config().startWithoutCheckpointAllowed());
        this.healthMonitor = new JobHealthMonitor(jobGraph.jobId(), jobGraph.config(), services.checkpointStore(),
                services.clock());
        FailoverPolicy failover = new FailoverPolicy(jobGraph, services.restartStrategy(), healthMonitor,
                restoreFallback, checkpointCoordinator, failures, mainThread);
        this.details = new JobDetailsRequests(jobGraph.jobId(), new JobDetailsAssembler(jobGraph, this::status,
                this::transitions, this::currentRound, slots, checkpointCoordinator, failures, healthMonitor),
                slots, mainThread, services.clock(), this::health);
        this.lifecycle = new JobLifecycle(jobGraph.jobId(), jobGraph.name(), mainThread, services.clock(),
                new JobMasterActions(jobGraph, services.clock(), slots, deployer, checkpointCoordinator, failover,
                        restoreFallback, healthMonitor, failures, details, resultFuture, this::onTaskExecutorLost,
                        this::onSlotsAdded),
                statusListener);
        details.publishBeforeStart(lifecycle.created()); // made on the runner's thread: nothing ran on its own yet
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

    /** Deploys all tasks, restoring from the latest completed checkpoint if there is one (or waits for slots). Main thread. */
    public void start() {
        lifecycle.start();
        details.publish();
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
     * further checkpoint is started or completed); {@link #resultFuture()} completes once the tasks
     * ended. Main thread.
     */
    public void suspend(String reason) {
        lifecycle.suspend(reason);
        details.publish();
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

    /** The details as of now, asked on the main thread (for callers that must see every change before it). */
    @Override
    public CompletableFuture<JobDetails> requestJobDetails() {
        return CompletableFuture.supplyAsync(() -> {
            details.publish();
            return details.request();
        }, mainThread).thenCompose(f -> f);
    }

    /**
     * The details as last published (after every command on the main thread), with task counters
     * asked from the task executors directly (at most 100 ms old). Any thread: nothing is submitted to
     * this job master's thread, so a status call never waits behind its work.
     */
    public CompletableFuture<JobDetails> publishedDetails() {
        return details.request();
    }

    /** Main thread, after every command (see {@link PublishingMainThreadExecutor}). */
    private void publishDetails() {
        if (details != null) { // null only while the constructor runs
            details.publish();
        }
    }

    @Override
    public CompletableFuture<Acknowledge> cancel() {
        return CompletableFuture.supplyAsync(() -> {
            lifecycle.cancel();
            return Acknowledge.INSTANCE;
        }, mainThread);
    }

    /**
     * {@inheritDoc} The savepoint is the checkpoint coordinator's ({@link CheckpointCoordinator#triggerSavepoint});
     * the cancel after it goes through the lifecycle like any cancel.
     */
    @Override
    public CompletableFuture<io.sluice.checkpoint.Savepoint> triggerSavepoint(String targetDirectory, boolean stop) {
        return CompletableFuture.supplyAsync(() -> checkpointCoordinator.triggerSavepoint(
                        targetDirectory != null ? targetDirectory : defaultSavepointDirectory, stop), mainThread)
                .thenCompose(f -> f)
                .thenApplyAsync(savepoint -> {
                    if (stop) {
                        LOG.info("Stopping job {} after savepoint {} ({})", jobGraph.jobId(), savepoint.checkpointId(),
                                savepoint.path());
                        lifecycle.cancel();
                    }
                    return savepoint;
                }, mainThread);
    }

    /** The job's details without task counters; main thread only (used when the job already ended). */
    public JobDetails currentDetails() {
        return details.current();
    }

    // ---------------------------------------------------------------- events from the tasks and the pool

    /** A task's report of its state: its round's bookkeeping, then the lifecycle's reaction. */
    private void onTaskStateChange(TaskExecutionState update) {
        TaskReport report = deployer.current().apply(update);
        if (report == null) {
            return; // not of the current round, or already ended
        }
        if (report.stoppedRestoring()) {
            deployer.restoreEnded();
        }
        if (report.allRestored()) {
            restoreFallback.restoreSucceeded();
        }
        ExecutionAttemptId id = update.attemptId();
        if (update.finalMetrics() != null) {
            details.taskEnded(update.finalMetrics());
        }
        switch (update.state()) {
            case FAILED -> lifecycle.taskFailed(TaskFailure.ofTask(update.failure() != null ? update.failure()
                            : new IllegalStateException("Task " + id + " failed without a cause"),
                    jobGraph.vertex(id.vertexId()).name(),
                    report.wasRestoring() ? deployer.current().restoreCheckpointId() : -1));
            case FINISHED -> {
                // Finished without acknowledging the pending checkpoint: it is part of it as finished.
                checkpointCoordinator.taskFinished(id, TaskStateHandle.finished(id.vertexId(), id.subtaskIndex()));
                lifecycle.taskFinished();
            }
            case CANCELED -> {
                if (report.before() == ExecutionState.CANCELING) {
                    lifecycle.taskEnded();
                } else {
                    // Not cancelled by this job master: its task executor gave it up (it lost its job manager).
                    lifecycle.taskFailed(TaskFailure.global(new IllegalStateException("Task " + id + " was cancelled"
                            + " by task executor " + report.execution().taskExecutor().id() + " without the job"
                            + " master asking (the task executor lost its job manager or shut down)")));
                }
            }
            case RUNNING -> {
                if (update.awaitingFinalCheckpoint()) {
                    checkpointCoordinator.taskAwaitsFinalCheckpoint(id);
                } else {
                    checkpointCoordinator.taskRunning();
                }
            }
            default -> { }
        }
    }

    /** Too many task-caused checkpoint failures: a running job fails over. */
    private void onGlobalFailure(Throwable cause) {
        lifecycle.globalFailure(cause);
    }

    /** The dynamic pool got slots: a job waiting for them tries again. */
    private void onSlotsAdded() {
        lifecycle.slotsAdded();
    }

    /**
     * A task executor left the dynamic pool. Tasks of the current round there are gone without a
     * report: they count as failed, and a running job fails over.
     */
    private void onTaskExecutorLost(String taskExecutorId, String reason) {
        // A suspended job master still waits for its tasks: a lost task executor's tasks count as ended (its
        // task manager cancels them before it joins another leader, and its reports are fenced off from here).
        JobStatus status = lifecycle.status();
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
        lifecycle.taskFailed(TaskFailure.global(new TaskExecutorLostException(taskExecutorId, reason)));
    }

    // ---------------------------------------------------------------- queries

    private DeploymentRound currentRound() {
        return deployer.current();
    }

    private List<JobStatusTransition> transitions() {
        return lifecycle.transitions();
    }

    /**
     * A crash loop, or checkpoints older than {@code checkpoints.stale-after}, for the job list. Any
     * thread: from memory, without a hop to the main thread.
     */
    public JobHealth health() {
        return healthMonitor.health(lifecycle.status());
    }

    /** Milliseconds since the latest completed checkpoint (or this job master's start); 0 when not checkpointing. Any thread. */
    public long checkpointAgeMillis() {
        return healthMonitor.checkpointAgeMillis(lifecycle.status());
    }

    /** The details at the moment the job ended under this job master, or {@code null} before. Any thread. */
    public JobDetails finalDetails() {
        return details.finalDetails();
    }

    /** The status as seen on the main thread (for tests). */
    public JobStatus status() {
        mainThread.assertRunningInMainThread();
        return lifecycle.status();
    }

    /** The checkpoint coordinator; main thread only. */
    public CheckpointCoordinator checkpointCoordinator() {
        return checkpointCoordinator;
    }
}
