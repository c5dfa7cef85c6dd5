package io.sluice.it;

import io.sluice.api.tuple.Tuple2;
import io.sluice.api.functions.SinkFunction;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * A test sink for {@code (key, count)} records that keeps only the largest count seen per key
 * (the final state of a keyed counter, whatever was replayed) and the number of records, so that
 * long runs do not hold millions of records in memory. A static registry keyed by id, like
 * {@code CollectingSink}, since each subtask runs a deserialized copy. Thread-safe; call
 * {@link #release()} when done.
 */
final class MaxCountPerKeySink implements SinkFunction<Tuple2<Long, Long>> {
    private static final long serialVersionUID = 1L;
    private static final Map<String, Results> REGISTRY = new ConcurrentHashMap<>();

    private record Results(Map<Long, Long> maxPerKey, LongAdder records) {
    }

    private final String id = UUID.randomUUID().toString();

    MaxCountPerKeySink() {
        REGISTRY.put(id, new Results(new ConcurrentHashMap<>(), new LongAdder()));
    }

    @Override
    public void invoke(Tuple2<Long, Long> value) {
        Results r = REGISTRY.get(id);
        r.maxPerKey().merge(value.f0(), value.f1(), Math::max);
        r.records().increment();
    }

    Map<Long, Long> maxPerKey() {
        return Map.copyOf(REGISTRY.get(id).maxPerKey());
    }

    long records() {
        return REGISTRY.get(id).records().sum();
    }

    void release() {
        REGISTRY.remove(id);
    }
}
