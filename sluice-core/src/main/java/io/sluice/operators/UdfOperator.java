package io.sluice.operators;

import io.sluice.api.functions.CheckpointListener;
import io.sluice.api.functions.RichFunction;
import io.sluice.api.functions.SnapshotListener;
import java.util.Objects;

/**
 * Base of the operators that wrap one user function: opens and closes it when it is a
 * {@link RichFunction}, tells it of checkpoints when it is a {@link SnapshotListener} (before) or a
 * {@link CheckpointListener} (after completion).
 * Task-thread only, like every operator.
 */
public abstract class UdfOperator<IN, OUT, F> implements StreamOperator<IN> {
    protected final F function;
    private final String name;
    protected transient Output<OUT> output;

    protected UdfOperator(F function, String name) {
        this.function = Objects.requireNonNull(function, "function");
        this.name = name;
    }

    @Override
    public void open(OperatorContext context) throws Exception {
        this.output = context.output();
        if (function instanceof RichFunction rich) {
            rich.open(context.runtimeContext());
        }
    }

    /** Forwards the watermark; operators with event-time logic override this. */
    @Override
    public void processWatermark(long watermark) throws Exception {
        output.emitWatermark(watermark);
    }

    @Override
    public void processIdleStatus(boolean idle) throws Exception {
        output.emitIdleStatus(idle);
    }

    @Override
    public void close() throws Exception {
        if (function instanceof RichFunction rich) {
            rich.close();
        }
    }

    @Override
    public void prepareSnapshot(long checkpointId) throws Exception {
        if (function instanceof SnapshotListener listener) {
            listener.beforeCheckpoint(checkpointId);
        }
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) throws Exception {
        if (function instanceof CheckpointListener listener) {
            listener.notifyCheckpointComplete(checkpointId);
        }
    }

    @Override
    public String name() {
        return name;
    }
}
