package io.sluice.testutil;

import io.sluice.checkpoint.TaskStateHandle;
import io.sluice.protocol.JobDetails;
import io.sluice.protocol.JobMasterGateway;
import io.sluice.rpc.Acknowledge;
import io.sluice.rpc.MainThreadExecutor;
import io.sluice.job.ExecutionAttemptId;
import io.sluice.job.ExecutionState;
import io.sluice.protocol.TaskExecutionState;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A job master for task-executor tests: records the task state reports it gets (acknowledging each
 * at once) and, given the task executor's main thread, whether every report came from it. Checkpoint
 * messages are ignored. Thread-safe: task executors report from their main threads, tests read from
 * theirs.
 */
public final class RecordingJobMasterGateway implements JobMasterGateway {
    private final MainThreadExecutor reportingThread;
    private final List<TaskExecutionState> reports = new CopyOnWriteArrayList<>();
    private volatile boolean reportedOnMainThread = true;

    /** Without a check of the reporting thread. */
    public RecordingJobMasterGateway() {
        this(null);
    }

    /** @param reportingThread the task executor's main thread, which every report must come from */
    public RecordingJobMasterGateway(MainThreadExecutor reportingThread) {
        this.reportingThread = reportingThread;
    }

    @Override
    public CompletableFuture<Acknowledge> updateTaskExecutionState(TaskExecutionState state) {
        if (reportingThread != null && !reportingThread.isMainThread()) {
            reportedOnMainThread = false;
        }
        reports.add(state);
        return CompletableFuture.completedFuture(Acknowledge.INSTANCE);
    }

    /** Every report so far, in arrival order. */
    public List<TaskExecutionState> reports() {
        return List.copyOf(reports);
    }

    /** The states reported for {@code id}, in order. */
    public List<ExecutionState> states(ExecutionAttemptId id) {
        return reports.stream().filter(r -> r.attemptId().equals(id)).map(TaskExecutionState::state).toList();
    }

    /** The FAILED reports, each as {@code "<attempt>: <failure>"}. */
    public List<String> failures() {
        return reports.stream().filter(r -> r.state() == ExecutionState.FAILED)
                .map(r -> r.attemptId() + ": " + r.failure()).toList();
    }

    /** Whether every report came from the reporting thread given to the constructor (true without one). */
    public boolean reportedOnMainThread() {
        return reportedOnMainThread;
    }

    @Override
    public void acknowledgeCheckpoint(ExecutionAttemptId task, long checkpointId, TaskStateHandle state) {
    }

    @Override
    public void declineCheckpoint(ExecutionAttemptId task, long checkpointId, Throwable reason) {
    }

    @Override
    public CompletableFuture<JobDetails> requestJobDetails() {
        return new CompletableFuture<>();
    }

    @Override
    public CompletableFuture<Acknowledge> cancel() {
        return CompletableFuture.completedFuture(Acknowledge.INSTANCE);
    }
}
