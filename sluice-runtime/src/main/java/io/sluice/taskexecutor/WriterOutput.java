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

    /** Side output id -> the writers of the edges that read it. */
    private final java.util.Map<String, RecordWriter<Object>[]> sideWriters;
    /** Every writer, main and side: watermarks and idleness go to all. */
    private final RecordWriter<?>[] allWriters;

    WriterOutput(List<RecordWriter<?>> writers) {
        this(writers, java.util.Map.of());
    }

    @SuppressWarnings("unchecked")
    WriterOutput(List<RecordWriter<?>> writers, java.util.Map<String, List<RecordWriter<?>>> sideWriters) {
        this.writers = writers.toArray(new RecordWriter[0]);
        this.single = this.writers.length == 1 ? this.writers[0] : null;
        this.sideWriters = new java.util.HashMap<>();
        List<RecordWriter<?>> all = new java.util.ArrayList<>(writers);
        sideWriters.forEach((id, list) -> {
            this.sideWriters.put(id, list.toArray(new RecordWriter[0]));
            all.addAll(list);
        });
        this.allWriters = all.toArray(new RecordWriter[0]);
    }

    @Override
    @SuppressWarnings("unchecked")
    public <X> void collect(io.sluice.api.functions.OutputTag<X> tag, X value) {
        RecordWriter<Object>[] side = sideWriters.get(tag.id());
        if (side == null) {
            return; // nobody reads this side output
        }
        try {
            for (RecordWriter<Object> w : side) {
                w.emit(value);
            }
        } catch (Throwable t) {
            throw Sneaky.rethrow(t);
        }
    }

    @Override
    public void collect(T record) {
        if (writers.length == 0) {
            return; // only side outputs are read
        }
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
            for (RecordWriter<?> w : allWriters) {
                w.broadcastEvent(event);
            }
        } catch (Throwable t) {
            throw Sneaky.rethrow(t);
        }
    }
}
