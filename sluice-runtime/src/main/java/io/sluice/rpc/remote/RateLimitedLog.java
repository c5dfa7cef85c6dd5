package io.sluice.rpc.remote;

import io.sluice.util.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;

/**
 * Logs a recurring problem at WARN at most once per interval per key (e.g. per target address), and
 * says in the next line how many were left out meanwhile. Thread-safe.
 */
final class RateLimitedLog {
    private static final int MAX_KEYS = 1024;

    private final Logger log;
    private final Clock clock;
    private final long intervalNanos;
    private final Map<String, long[]> lastAndSuppressed = new ConcurrentHashMap<>();

    RateLimitedLog(Logger log, Clock clock, Duration interval) {
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
            log.warn("{} ({} similar messages left out in the last {} s)", message, suppressed, intervalNanos / 1_000_000_000L);
        } else {
            log.warn(message);
        }
    }
}
