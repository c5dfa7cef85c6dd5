package io.sluice.metrics.job;

import io.sluice.job.JobStatus;
import java.util.EnumMap;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * How long a job has spent in each status: the closed periods plus, for the current status, the
 * time since it began. Fed by status changes, read by scrapes. Thread-safe.
 */
public final class JobStatusTimes {
    private final LongSupplier nanoClock;
    private final Map<JobStatus, Long> closedNanos = new EnumMap<>(JobStatus.class);
    private JobStatus current;
    private long currentSinceNanos;

    public JobStatusTimes(JobStatus initial, LongSupplier nanoClock) {
        this.nanoClock = nanoClock;
        this.current = initial;
        this.currentSinceNanos = nanoClock.getAsLong();
    }

    /** Records that the job entered {@code next} now. Returns whether it is a change. */
    public synchronized boolean enter(JobStatus next) {
        if (next == current) {
            return false;
        }
        long now = nanoClock.getAsLong();
        closedNanos.merge(current, now - currentSinceNanos, Long::sum);
        current = next;
        currentSinceNanos = now;
        return true;
    }

    /** Total time spent in {@code status} so far, in seconds. */
    public synchronized double seconds(JobStatus status) {
        long nanos = closedNanos.getOrDefault(status, 0L);
        if (status == current) {
            nanos += nanoClock.getAsLong() - currentSinceNanos;
        }
        return nanos / 1e9;
    }

    public synchronized JobStatus current() {
        return current;
    }
}
