package io.sluice.operators;

import io.sluice.api.functions.Collector;

/**
 * Where an operator emits: the next operator in the chain, or the task's record writers. Records
 * go out with the task's current {@link RecordTimestamp}; watermarks and idleness go behind the
 * records emitted before them.
 */
public interface Output<T> extends Collector<T> {
    /**
     * Emits {@code value} to the side output {@code tag}, with the current record timestamp. The
     * default (no consumer of that side output) drops it.
     */
    default <X> void collect(io.sluice.api.functions.OutputTag<X> tag, X value) {}

    /**
     * Emits {@code record} with the event timestamp {@code timestamp} (a source that knows its records'
     * times, such as Kafka's). The default drops the timestamp.
     */
    default void collect(T record, long timestamp) {
        collect(record);
    }

    /** Event time has progressed to {@code watermark}. The default (an output to nowhere) drops it. */
    default void emitWatermark(long watermark) {}

    /**
     * This output becomes idle (no records nor watermarks to expect for now) or active again. The
     * default (an output to nowhere) drops it.
     */
    default void emitIdleStatus(boolean idle) {}
}
