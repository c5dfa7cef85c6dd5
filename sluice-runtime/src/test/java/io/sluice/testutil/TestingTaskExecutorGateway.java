package io.sluice.testutil;

import io.sluice.graph.JobId;
import io.sluice.protocol.JobMasterGateway;
import io.sluice.rpc.Acknowledge;
import io.sluice.job.ExecutionAttemptId;
import io.sluice.protocol.TaskDeploymentDescriptor;
import io.sluice.protocol.TaskExecutorGateway;
import io.sluice.protocol.TaskMetrics;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;

/**
 * A {@link TaskExecutorGateway} that runs nothing: it records what a job master asks of it
 * (submitted descriptors, cancellations, checkpoint triggers and notifications) so that a test can
 * assert on it, and answers with completed futures unless told otherwise. Task states are reported
 * back by the test itself (through the {@link JobMasterGateway} it drives). Thread-safe.
 */
public final class TestingTaskExecutorGateway implements TaskExecutorGateway {

    /** One {@link #triggerCheckpoint} call. */
    public record TriggerCall(ExecutionAttemptId task, long checkpointId, long timestampMillis) {
    }

    /** One {@link #notifyCheckpointComplete} call. */
    public record NotifyCall(ExecutionAttemptId task, long checkpointId) {
    }

    private final String id;
    private final int slots;
    private final List<TaskDeploymentDescriptor> submitted = new CopyOnWriteArrayList<>();
    private final List<ExecutionAttemptId> cancelled = new CopyOnWriteArrayList<>();
    private final java.util.Map<ExecutionAttemptId, JobMasterGateway> jobMasters = new java.util.concurrent.ConcurrentHashMap<>();
    private final List<TriggerCall> triggers = new CopyOnWriteArrayList<>();
    private final List<NotifyCall> notifications = new CopyOnWriteArrayList<>();
    private volatile Function<TaskDeploymentDescriptor, CompletableFuture<Acknowledge>> submitFunction =
            d -> CompletableFuture.completedFuture(Acknowledge.INSTANCE);
    private volatile Function<JobId, CompletableFuture<List<TaskMetrics>>> metricsFunction =
            j -> CompletableFuture.completedFuture(List.of());

    public TestingTaskExecutorGateway(String id, int slots) {
        this.id = id;
        this.slots = slots;
    }

    /** How {@link #submitTask} answers; by default a completed acknowledgement. */
    public TestingTaskExecutorGateway onSubmit(Function<TaskDeploymentDescriptor, CompletableFuture<Acknowledge>> fn) {
        this.submitFunction = fn;
        return this;
    }

    /** How {@link #requestTaskMetrics} answers; by default an empty list. */
    public TestingTaskExecutorGateway onRequestTaskMetrics(Function<JobId, CompletableFuture<List<TaskMetrics>>> fn) {
        this.metricsFunction = fn;
        return this;
    }

    @Override
    public String id() {
        return id;
    }

    @Override
    public int numberOfSlots() {
        return slots;
    }

    @Override
    public CompletableFuture<Acknowledge> submitTask(TaskDeploymentDescriptor descriptor, JobMasterGateway jobMaster) {
        submitted.add(descriptor);
        jobMasters.put(descriptor.attemptId(), jobMaster);
        return submitFunction.apply(descriptor);
    }

    @Override
    public CompletableFuture<Acknowledge> cancelTask(ExecutionAttemptId task) {
        cancelled.add(task);
        return CompletableFuture.completedFuture(Acknowledge.INSTANCE);
    }

    @Override
    public void triggerCheckpoint(ExecutionAttemptId task, long checkpointId, long timestampMillis) {
        triggers.add(new TriggerCall(task, checkpointId, timestampMillis));
    }

    /** Recorded as a {@link TriggerCall} too: the tests that use this gateway do not tell them apart. */
    @Override
    public void triggerSavepoint(ExecutionAttemptId task, long checkpointId, long timestampMillis, boolean stop) {
        triggers.add(new TriggerCall(task, checkpointId, timestampMillis));
    }

    @Override
    public void notifyCheckpointComplete(ExecutionAttemptId task, long checkpointId) {
        notifications.add(new NotifyCall(task, checkpointId));
    }

    @Override
    public CompletableFuture<List<TaskMetrics>> requestTaskMetrics(JobId jobId) {
        return metricsFunction.apply(jobId);
    }

    /** Every descriptor submitted so far, in submission order. */
    public List<TaskDeploymentDescriptor> submitted() {
        return List.copyOf(submitted);
    }

    /** The job master that submitted {@code task} (to report its state changes to), or null. */
    public JobMasterGateway jobMasterOf(ExecutionAttemptId task) {
        return jobMasters.get(task);
    }

    /** The attempt ids of {@link #submitted()}. */
    public List<ExecutionAttemptId> submittedIds() {
        return submitted.stream().map(TaskDeploymentDescriptor::attemptId).toList();
    }

    /** Every cancellation so far, in call order (a task cancelled twice appears twice). */
    public List<ExecutionAttemptId> cancelled() {
        return List.copyOf(cancelled);
    }

    public List<TriggerCall> triggers() {
        return List.copyOf(triggers);
    }

    public List<NotifyCall> notifications() {
        return List.copyOf(notifications);
    }

    @Override
    public String toString() {
        return "TestingTaskExecutorGateway{" + id + "}";
    }
}
