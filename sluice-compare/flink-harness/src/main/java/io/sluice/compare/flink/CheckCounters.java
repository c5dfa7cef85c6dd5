package io.sluice.compare.flink;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAccumulator;
import java.util.concurrent.atomic.LongAdder;

/**
 * Counters of the bounded check runs' sink ({@code CheckSink} in {@code src/flink1} and
 * {@code src/flink2}) in this JVM, under an id the sink carries: the values received (window results,
 * or running counts), their sum and the largest. Only the check runs have such a sink.
 *
 * <p>Thread rules: {@link #add} from the sink's task threads, the rest from the harness thread.
 */
final class CheckCounters {
    private static final Map<String, CheckCounters> OPEN = new ConcurrentHashMap<>();
    private final LongAdder received = new LongAdder();
    private final LongAdder sum = new LongAdder();
    private final LongAccumulator max = new LongAccumulator(Math::max, Long.MIN_VALUE);

    /** What the sink received. */
    record Counted(long received, long sum, long max) {
    }

    private CheckCounters() {}

    static void open(String id) {
        OPEN.put(id, new CheckCounters());
    }

    static CheckCounters get(String id) {
        return OPEN.get(id);
    }

    void add(long value) {
        received.increment();
        sum.add(value);
        max.accumulate(value);
    }

    static Counted read(String id) {
        CheckCounters c = OPEN.get(id);
        return new Counted(c.received.sum(), c.sum.sum(), c.max.get());
    }

    static void close(String id) {
        OPEN.remove(id);
    }
}
