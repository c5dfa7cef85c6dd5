package io.sluice.taskexecutor;

import io.sluice.checkpoint.TaskStateHandle;
import io.sluice.job.ExecutionAttemptId;
import io.sluice.protocol.JobDetails;
import io.sluice.protocol.JobMasterGateway;
import io.sluice.protocol.TaskExecutionState;
import io.sluice.rpc.Acknowledge;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A job master for task tests that records, in arrival order, what a task tells it: its states
 * ({@code "RUNNING"}, {@code "FINISHED"}, ...), acknowledgements ({@code "ack 3"}) and declines
 * ({@code "decline 3"}), with the handles and causes kept by checkpoint id. Thread-safe: tasks
 * report from their threads and I/O threads, tests read from theirs.
 */
final class CheckpointRecordingJobMaster implements JobMasterGateway {
    private final List<String> events = new CopyOnWriteArrayList<>();
    private final List<TaskExecutionState> states = new CopyOnWriteArrayList<>();
    private final Map<Long, TaskStateHandle> acknowledged = new ConcurrentHashMap<>();
    private final Map<Long, Throwable> declined = new ConcurrentHashMap<>();

    @Override
    public CompletableFuture<Acknowledge> updateTaskExecutionState(TaskExecutionState state) {
        states.add(state);
        events.add(state.state().name() + (state.awaitingFinalCheckpoint() ? " awaiting final checkpoint" : ""));
        return CompletableFuture.completedFuture(Acknowledge.INSTANCE);
    }

    @Override
    public void acknowledgeCheckpoint(ExecutionAttemptId task, long checkpointId, TaskStateHandle state) {
        acknowledged.put(checkpointId, state);
        events.add("ack " + checkpointId);
    }

    @Override
    public void declineCheckpoint(ExecutionAttemptId task, long checkpointId, Throwable reason) {
        declined.put(checkpointId, reason);
        events.add("decline " + checkpointId);
    }

    /** Everything heard so far, in arrival order. */
    List<String> events() {
        return List.copyOf(events);
    }

    List<TaskExecutionState> states() {
        return List.copyOf(states);
    }

    TaskStateHandle acknowledged(long checkpointId) {
        return acknowledged.get(checkpointId);
    }

    Throwable declined(long checkpointId) {
        return declined.get(checkpointId);
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
