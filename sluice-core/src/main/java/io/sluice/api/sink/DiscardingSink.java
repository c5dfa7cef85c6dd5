package io.sluice.api.sink;

import io.sluice.api.functions.SinkFunction;

/**
 * Drops every record and counts them: the sink for benchmarks, where only throughput matters.
 *
 * <p>Threading: each deployed instance is called only from its task thread. The count is a plain
 * field, so {@link #count()} is exact on that thread but may be stale when read from another.
 */
public final class DiscardingSink<T> implements SinkFunction<T> {
    private static final long serialVersionUID = 1L;

    private long count;

    @Override
    public void invoke(T value) {
        count++;
    }

    /** Records this instance has dropped since it was created or deployed. */
    public long count() {
        return count;
    }
}
