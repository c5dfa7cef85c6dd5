package io.sluice.connector.kafka;

import io.sluice.api.functions.OutputTag;
import io.sluice.operators.Output;
import java.util.ArrayList;
import java.util.List;

/** What a source reader emitted: records with timestamps, watermarks, idleness changes, side outputs. */
final class RecordingOutput<T> implements Output<T> {
    final List<T> records = new ArrayList<>();
    final List<Long> timestamps = new ArrayList<>();
    final List<Long> watermarks = new ArrayList<>();
    final List<Boolean> idleChanges = new ArrayList<>();
    final List<Object> sideOutputs = new ArrayList<>();

    @Override
    public void collect(T record) {
        records.add(record);
        timestamps.add(null);
    }

    @Override
    public void collect(T record, long timestamp) {
        records.add(record);
        timestamps.add(timestamp);
    }

    @Override
    public <X> void collect(OutputTag<X> tag, X value) {
        sideOutputs.add(value);
    }

    @Override
    public void emitWatermark(long watermark) {
        watermarks.add(watermark);
    }

    @Override
    public void emitIdleStatus(boolean idle) {
        idleChanges.add(idle);
    }
}
