package io.sluice.taskexecutor;

import io.sluice.operators.Output;
import io.sluice.operators.StreamOperator;

/** Passes records to the next operator of the chain by a direct call. Task-thread only. */
final class ChainedOutput<T> implements Output<T> {
    private final StreamOperator<T> next;

    ChainedOutput(StreamOperator<T> next) {
        this.next = next;
    }

    @Override
    public void collect(T record) {
        try {
            next.processElement(record);
        } catch (Throwable t) {
            throw Sneaky.rethrow(t);
        }
    }

    @Override
    public void emitWatermark(long watermark) {
        try {
            next.processWatermark(watermark);
        } catch (Throwable t) {
            throw Sneaky.rethrow(t);
        }
    }

    @Override
    public void emitIdleStatus(boolean idle) {
        try {
            next.processIdleStatus(idle);
        } catch (Throwable t) {
            throw Sneaky.rethrow(t);
        }
    }
}
