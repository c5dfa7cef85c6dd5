package io.sluice.security.tls;

import io.sluice.config.Durations;
import io.sluice.util.Clock;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Logs failed TLS handshakes at WARN at most once per interval, saying how many were left out, so
 * that a port scan or a misconfigured peer retrying in a loop cannot flood the log. Thread-safe
 * (event loops of any channel).
 */
final class RefusalLog {
    private static final Logger LOG = LoggerFactory.getLogger(RefusalLog.class);

    private final Clock clock;
    private final long intervalNanos;
    private final AtomicLong nextNanos;
    private final AtomicLong suppressed = new AtomicLong();

    RefusalLog(Clock clock, Duration interval) {
        this.clock = clock;
        this.intervalNanos = interval.toNanos();
        this.nextNanos = new AtomicLong(clock.nanoTime());
    }

    void warn(String message) {
        long now = clock.nanoTime();
        long next = nextNanos.get();
        if (now - next >= 0 && nextNanos.compareAndSet(next, now + intervalNanos)) {
            long left = suppressed.getAndSet(0);
            LOG.warn(left == 0 ? message : message + " (" + left + " more failed TLS handshakes in the last "
                    + Durations.describe(Duration.ofNanos(intervalNanos)) + " not logged)");
        } else {
            suppressed.incrementAndGet();
        }
    }
}
