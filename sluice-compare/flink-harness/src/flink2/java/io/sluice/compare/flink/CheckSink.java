package io.sluice.compare.flink;

import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;

/**
 * The bounded check runs' sink on Flink 2.x (a sink2 {@code Sink}, {@code sinkTo}): counts what it
 * receives into {@link CheckCounters}. Flink calls its writers from their task threads only.
 */
final class CheckSink implements Sink<Long> {
    private static final long serialVersionUID = 1L;
    private final String id;

    CheckSink(String id) {
        this.id = id;
    }

    @Override
    public SinkWriter<Long> createWriter(WriterInitContext context) {
        CheckCounters counters = CheckCounters.get(id);
        return new SinkWriter<>() {
            @Override
            public void write(Long value, Context context) {
                counters.add(value);
            }

            @Override
            public void flush(boolean endOfInput) {
            }

            @Override
            public void close() {
            }
        };
    }
}
