package io.sluice.restart;

import io.sluice.config.Durations;
import io.sluice.config.RestartStrategyConfig.FailureRate;
import io.sluice.util.Clock;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;

/**
 * Restarts with a fixed delay until more than {@code maxFailures} failures fall within one
 * sliding window of length {@code interval}, then gives up for good. A failure at time t counts
 * in the window of a failure at time u when {@code u - t < interval}. Not thread-safe: JobMaster
 * main thread only.
 */
public final class FailureRateRestartStrategy implements RestartStrategy {
    private final int maxFailures;
    private final long intervalNanos;
    private final Duration interval;
    private final Duration delay;
    private final Clock clock;
    /** Times (clock nanos) of the failures in the current window, oldest first; at most maxFailures + 1. */
    private final Deque<Long> failureTimes = new ArrayDeque<>();
    private boolean gaveUp;

    public FailureRateRestartStrategy(FailureRate config, Clock clock) {
        this.maxFailures = config.maxFailures();
        this.interval = config.interval();
        this.intervalNanos = config.interval().toNanos();
        this.delay = config.delay();
        this.clock = clock;
    }

    @Override
    public void notifyFailure(Throwable cause) {
        long now = clock.nanoTime();
        failureTimes.addLast(now);
        while (now - failureTimes.peekFirst() >= intervalNanos) {
            failureTimes.removeFirst();
        }
        if (failureTimes.size() > maxFailures) {
            gaveUp = true;
        }
    }

    @Override
    public boolean canRestart() {
        return !gaveUp;
    }

    @Override
    public Duration backoff() {
        if (gaveUp) {
            throw new IllegalStateException("No backoff: " + describe() + "; check canRestart() first");
        }
        return delay;
    }

    @Override
    public String describe() {
        if (gaveUp) {
            return "failure rate: gave up, " + failureTimes.size() + " failures within "
                    + Durations.format(interval) + " (at most " + maxFailures + " allowed)";
        }
        return "failure rate: " + failureTimes.size() + " of at most " + maxFailures + " failures within "
                + Durations.format(interval) + ", " + Durations.format(delay);
    }
}
