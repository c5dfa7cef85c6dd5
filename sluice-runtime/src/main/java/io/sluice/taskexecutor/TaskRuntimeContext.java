package io.sluice.taskexecutor;

import io.sluice.api.functions.RuntimeContext;
import io.sluice.api.state.ListState;
import io.sluice.api.state.ListStateDescriptor;
import io.sluice.api.state.MapState;
import io.sluice.api.state.MapStateDescriptor;
import io.sluice.api.state.ValueState;
import io.sluice.api.state.ValueStateDescriptor;
import io.sluice.state.KeyedStateBackend;

/** The {@link RuntimeContext} of one operator in a task. Task-thread only. */
final class TaskRuntimeContext implements RuntimeContext {
    private final String taskName;
    private final int subtaskIndex;
    private final int parallelism;
    private final int maxParallelism;
    private final int attemptNumber;
    private final KeyedStateBackend backend;
    private final String operatorName;
    private String jobId = "";
    private java.time.Duration checkpointInterval;
    private java.time.Duration maxRestartDelay = java.time.Duration.ZERO;
    private io.sluice.api.functions.RestoredCheckpoint restoredFrom;

    TaskRuntimeContext(String taskName, int subtaskIndex, int parallelism, int maxParallelism, int attemptNumber,
                       KeyedStateBackend backend, String operatorName) {
        this.taskName = taskName;
        this.subtaskIndex = subtaskIndex;
        this.parallelism = parallelism;
        this.maxParallelism = maxParallelism;
        this.attemptNumber = attemptNumber;
        this.backend = backend;
        this.operatorName = operatorName;
    }

    /** Sets what the context tells of the job (before the operator opens). */
    TaskRuntimeContext withJob(io.sluice.graph.JobGraph graph) {
        this.jobId = graph.jobId().value();
        this.checkpointInterval = graph.config().checkpointingEnabled() ? graph.config().checkpointInterval() : null;
        this.maxRestartDelay = graph.config().restartStrategy() == null ? java.time.Duration.ZERO
                : graph.config().restartStrategy().maxDelay();
        return this;
    }

    /** Sets the other job's checkpoint the task restored from (before the operator opens); null for none. */
    TaskRuntimeContext withRestoredFrom(io.sluice.api.functions.RestoredCheckpoint restoredFrom) {
        this.restoredFrom = restoredFrom;
        return this;
    }

    @Override
    public String jobId() {
        return jobId;
    }

    @Override
    public io.sluice.api.functions.RestoredCheckpoint restoredFrom() {
        return restoredFrom;
    }

    @Override
    public java.time.Duration checkpointInterval() {
        return checkpointInterval;
    }

    @Override
    public java.time.Duration maxRestartDelay() {
        return maxRestartDelay;
    }

    @Override
    public String taskName() {
        return taskName;
    }

    @Override
    public int subtaskIndex() {
        return subtaskIndex;
    }

    @Override
    public int parallelism() {
        return parallelism;
    }

    @Override
    public int maxParallelism() {
        return maxParallelism;
    }

    @Override
    public int attemptNumber() {
        return attemptNumber;
    }

    private KeyedStateBackend keyed(String stateName) {
        if (backend == null) {
            throw new io.sluice.api.errors.KeyedStateUnavailableException("Operator '" + operatorName + "' asked for keyed state '" + stateName
                    + "', but keyed state exists only for functions applied directly on a KeyedStream:"
                    + " call keyBy(...) right before this operator");
        }
        return backend;
    }

    @Override
    public <T> ValueState<T> getState(ValueStateDescriptor<T> descriptor) {
        return keyed(descriptor.name()).getValueState(descriptor);
    }

    @Override
    public <T> ListState<T> getListState(ListStateDescriptor<T> descriptor) {
        return keyed(descriptor.name()).getListState(descriptor);
    }

    @Override
    public <K, V> MapState<K, V> getMapState(MapStateDescriptor<K, V> descriptor) {
        return keyed(descriptor.name()).getMapState(descriptor);
    }
}
