package io.sluice.util;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/** A clock that moves only when told to. Thread-safe. Lives in main code so that demos and benchmarks can use it too. */
public final class ManualClock implements Clock {
    private final AtomicLong nanos;
    private final AtomicLong wallStepMillis = new AtomicLong();
    private final long epochMillisAtZero;

    public ManualClock() {
        this(1_700_000_000_000L);
    }

    public ManualClock(long epochMillisAtZero) {
        this.epochMillisAtZero = epochMillisAtZero;
        this.nanos = new AtomicLong();
    }

    public void advance(Duration d) {
        if (d.isNegative()) {
            throw new IllegalArgumentException("Time does not go back: " + d);
        }
        nanos.addAndGet(d.toNanos());
    }

    /**
     * Steps the wall clock alone by {@code step}, forward or back, as an NTP step or an operator's {@code date -s}
     * does; monotonic time does not move.
     */
    public void stepWallClock(Duration step) {
        wallStepMillis.addAndGet(step.toMillis());
    }

    @Override
    public long currentTimeMillis() {
        return epochMillisAtZero + wallStepMillis.get() + nanos.get() / 1_000_000L;
    }

    @Override
    public long nanoTime() {
        return nanos.get();
    }
}
