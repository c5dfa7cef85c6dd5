package io.sluice.operators;

import io.sluice.api.functions.RuntimeContext;
import io.sluice.state.KeyedStateBackend;
import io.sluice.util.Clock;

/** What the task gives an operator when it opens it. */
public interface OperatorContext {
    RuntimeContext runtimeContext();

    /** The output to emit to. */
    <T> Output<T> output();

    /**
     * The keyed state backend when this operator consumes a keyed stream (the task sets the
     * current key before each {@code processElement}); {@code null} otherwise.
     */
    KeyedStateBackend keyedStateBackend();

    /**
     * The event timestamp of the record being processed, shared by the task's chain. The default (for
     * contexts that have no timestamps) is a fresh holder with no timestamp; the task overrides it.
     */
    default RecordTimestamp recordTimestamp() {
        return new RecordTimestamp();
    }

    /** The task's clock: processing time is its {@link Clock#currentTimeMillis()}. Default: the system clock. */
    default Clock clock() {
        return io.sluice.util.SystemClock.INSTANCE;
    }

    /**
     * What {@link StreamOperator#snapshotState} returned for this operator in the checkpoint the task
     * restores from, or {@code null} on a fresh start (the default).
     */
    default OperatorStateRestore restoredState() {
        return null;
    }

    /**
     * The checkpoint the task restores from, or empty when it starts from scratch. Known at
     * {@link StreamOperator#open}: an operator that keeps work outside Sluice per checkpoint (a
     * two-phase-commit sink) completes what belongs to this checkpoint and drops anything it began
     * after it. The default (contexts without restore): empty.
     */
    default java.util.OptionalLong restoredCheckpointId() {
        return java.util.OptionalLong.empty();
    }
}
