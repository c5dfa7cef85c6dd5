package io.sluice.compare.flink;

import java.util.concurrent.locks.LockSupport;
import org.apache.flink.api.common.functions.MapFunction;

/**
 * Passes records on at most {@code perSubtask} records/s, chained to a Source-API source (which,
 * unlike a SourceFunction, has no loop of its own to pace): it parks until each record is due, so the
 * source is held back in the same task. Pacing is the workload here, not a wait for a condition.
 *
 * <p>Thread rules: Flink calls it from its task thread only.
 */
final class Pace implements MapFunction<Long, Long> {
    private static final long serialVersionUID = 1L;
    private final double perSubtask;
    private transient long start;
    private transient long passed;

    Pace(double perSubtask) {
        this.perSubtask = perSubtask;
    }

    @Override
    public Long map(Long value) {
        long now = System.nanoTime();
        if (passed == 0) {
            start = now;
        }
        long due = start + (long) (passed * 1e9 / perSubtask);
        if (due > now) {
            LockSupport.parkNanos(due - now);
        }
        passed++;
        return value;
    }
}
