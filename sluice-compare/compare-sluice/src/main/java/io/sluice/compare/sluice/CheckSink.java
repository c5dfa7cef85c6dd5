package io.sluice.compare.sluice;

import io.sluice.api.functions.SinkFunction;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAccumulator;
import java.util.concurrent.atomic.LongAdder;

/**
 * The sink of the bounded check runs: counts the values it receives (window results, or running
 * counts), adds them up and keeps the largest, into counters of this JVM registered under an id (the
 * sink itself is serialized into the job). Only the check runs use it.
 *
 * <p>Threading: {@link #invoke} on the sink's task threads; the static methods on the harness thread.
 */
final class CheckSink implements SinkFunction<Long> {
    private static final long serialVersionUID = 1L;
    private static final Map<String, Counters> COUNTERS = new ConcurrentHashMap<>();
    private final String id;
    private transient Counters counters;

    /** What the sink received: how many values, their sum and the largest. */
    record Counted(long received, long sum, long max) {
    }

    private record Counters(LongAdder received, LongAdder sum, LongAccumulator max) {
    }

    CheckSink(String id) {
        this.id = id;
    }

    static void open(String id) {
        COUNTERS.put(id, new Counters(new LongAdder(), new LongAdder(), new LongAccumulator(Math::max, Long.MIN_VALUE)));
    }

    static Counted counted(String id) {
        Counters c = COUNTERS.get(id);
        return new Counted(c.received().sum(), c.sum().sum(), c.max().get());
    }

    static void close(String id) {
        COUNTERS.remove(id);
    }

    @Override
    public void invoke(Long value) {
        if (counters == null) {
            counters = COUNTERS.get(id);
        }
        counters.received().increment();
        counters.sum().add(value);
        counters.max().accumulate(value);
    }
}
