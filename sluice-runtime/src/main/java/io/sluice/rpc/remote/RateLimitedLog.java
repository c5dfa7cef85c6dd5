package io.sluice.rpc.remote;

import io.sluice.util.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * Logs a recurring problem at WARN at most once per interval per key (e.g. per target address), and
 * says in the next line how many were left out meanwhile. Thread-safe.
 */
final class RateLimitedLog {
    private static final int MAX_KEYS = 1024;

    private final Consumer<String> log;
    private final Clock clock;
    private final long intervalNanos;
    private final Map<String, long[]> lastAndSuppressed = new ConcurrentHashMap<>();

    /** @param log receives each line to log at WARN */
    RateLimitedLog(Consumer<String> log, Clock clock, Duration interval) {
        this.log = log;
        this.clock = clock;
        this.intervalNanos = interval.toNanos();
    }

    void warn(String key, String message) {
        if (lastAndSuppressed.size() > MAX_KEYS) {
            lastAndSuppressed.clear();
        }
        long now = clock.nanoTime();
        long suppressed;
        long[] state = lastAndSuppressed.computeIfAbsent(key, k -> new long[] {now - intervalNanos - 1, 0});
        synchronized (state) {
            if (now - state[0] <= intervalNanos) {
                state[1]++;
                return;
            }
            suppressed = state[1];
            state[0] = now;
            state[1] = 0;
        }
        if (suppressed > 0) {
            log.accept(message + " (" + suppressed + " similar messages left out in the last "
                    + intervalNanos / 1_000_000_000L + " s)");
        } else {
            log.accept(message);
        }
    }
}
