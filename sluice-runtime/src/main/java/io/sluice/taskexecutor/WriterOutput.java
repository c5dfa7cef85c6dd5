package io.sluice.taskexecutor;

import io.sluice.network.IdleStatus;
import io.sluice.network.NetworkEvent;
import io.sluice.network.RecordWriter;
import io.sluice.network.Watermark;
import io.sluice.operators.Output;
import java.util.List;

/** The end of a chain: writes each record to every output edge's record writer. Task-thread only. */
final class WriterOutput<T> implements Output<T> {
    private final RecordWriter<T> single;
    private final RecordWriter<T>[] writers;

    @SuppressWarnings("unchecked")
    WriterOutput(List<RecordWriter<?>> writers) {
        this.writers = writers.toArray(new RecordWriter[0]);
        this.single = this.writers.length == 1 ? this.writers[0] : null;
    }

    @Override
    public void collect(T record) {
        try {
            if (single != null) {
                single.emit(record);
            } else {
                for (RecordWriter<T> w : writers) {
                    w.emit(record);
                }
            }
        } catch (Throwable t) {
            throw Sneaky.rethrow(t);
        }
    }

    @Override
    public void emitWatermark(long watermark) {
        broadcast(new Watermark(watermark));
    }

    @Override
    public void emitIdleStatus(boolean idle) {
        broadcast(idle ? IdleStatus.IDLE : IdleStatus.ACTIVE);
    }

    private void broadcast(NetworkEvent event) {
        try {
            for (RecordWriter<T> w : writers) {
                w.broadcastEvent(event);
            }
        } catch (Throwable t) {
            throw Sneaky.rethrow(t);
        }
    }
}
