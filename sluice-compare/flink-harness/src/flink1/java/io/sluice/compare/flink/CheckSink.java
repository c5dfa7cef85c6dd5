package io.sluice.compare.flink;

import org.apache.flink.streaming.api.functions.sink.SinkFunction;

/**
 * The bounded check runs' sink on Flink 1.x ({@code addSink}): counts what it receives into
 * {@link CheckCounters}. Flink calls it from its task thread only.
 */
final class CheckSink implements SinkFunction<Long> {
    private static final long serialVersionUID = 1L;
    private final String id;
    private transient CheckCounters counters;

    CheckSink(String id) {
        this.id = id;
    }

    @Override
    public void invoke(Long value, Context context) {
        if (counters == null) {
            counters = CheckCounters.get(id);
        }
        counters.add(value);
    }
}
