package io.sluice.taskexecutor;

import io.sluice.api.functions.RuntimeContext;
import io.sluice.operators.OperatorContext;
import io.sluice.operators.Output;
import io.sluice.operators.RecordTimestamp;
import io.sluice.state.KeyedStateBackend;
import io.sluice.util.Clock;
import java.util.OptionalLong;

/** What one operator of a task's chain gets when it opens. Task thread only. */
final class TaskOperatorContext implements OperatorContext {
    private final RuntimeContext runtimeContext;
    private final Output<?> output;
    private final KeyedStateBackend keyedStateBackend;
    private final RecordTimestamp recordTimestamp;
    private final Clock clock;
    private final OptionalLong restoredCheckpointId;
    /** The operator's own state in the restored checkpoint, or null. */
    private final io.sluice.operators.OperatorStateRestore restoredState;

    /** Without operator state to restore. */
    TaskOperatorContext(RuntimeContext runtimeContext, Output<?> output, KeyedStateBackend keyedStateBackend,
                        RecordTimestamp recordTimestamp, Clock clock, OptionalLong restoredCheckpointId) {
        this(runtimeContext, output, keyedStateBackend, recordTimestamp, clock, restoredCheckpointId, null);
    }

    /**
     * @param keyedStateBackend    the task's backend for the head of a keyed task, else {@code null}
     * @param restoredCheckpointId the checkpoint the task restores from, or empty for a fresh start
     */
    TaskOperatorContext(RuntimeContext runtimeContext, Output<?> output, KeyedStateBackend keyedStateBackend,
                        RecordTimestamp recordTimestamp, Clock clock, OptionalLong restoredCheckpointId,
                        io.sluice.operators.OperatorStateRestore restoredState) {
        this.restoredState = restoredState;
        this.runtimeContext = runtimeContext;
        this.output = output;
        this.keyedStateBackend = keyedStateBackend;
        this.recordTimestamp = recordTimestamp;
        this.clock = clock;
        this.restoredCheckpointId = restoredCheckpointId;
    }

    @Override
    public RuntimeContext runtimeContext() {
        return runtimeContext;
    }

    @Override
    @SuppressWarnings("unchecked")
    public <T> Output<T> output() {
        return (Output<T>) output;
    }

    @Override
    public KeyedStateBackend keyedStateBackend() {
        return keyedStateBackend;
    }

    @Override
    public RecordTimestamp recordTimestamp() {
        return recordTimestamp;
    }

    @Override
    public Clock clock() {
        return clock;
    }

    @Override
    public OptionalLong restoredCheckpointId() {
        return restoredCheckpointId;
    }

    @Override
    public io.sluice.operators.OperatorStateRestore restoredState() {
        return restoredState;
    }
}
