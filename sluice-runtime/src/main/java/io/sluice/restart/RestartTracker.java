package io.sluice.restart;

import io.sluice.util.Clock;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;

/**
 * Records a job's restarts for its status ({@link RestartHistory}): the restart rate over the last
 * {@link #WINDOW} and the latest {@link #RECENT_LIMIT} causes. Time comes from the injected clock
 * (monotonic time for the window, wall-clock time for the timestamps shown).
 *
 * <p>Not thread-safe: JobMaster main thread only.
 */
public final class RestartTracker {
    /** The window of the restart rate. */
    public static final Duration WINDOW = Duration.ofMinutes(10);
    /** How many restarts (with causes) the history keeps. */
    public static final int RECENT_LIMIT = 10;
    /** Restarts in the window beyond this are still counted, by dropping the oldest times (a crash loop at the fastest backoff). */
    private static final int MAX_TIMES = 10_000;

    private final Clock clock;
    /** Monotonic times of the restarts in the window, oldest first. */
    private final Deque<Long> times = new ArrayDeque<>();
    private final Deque<RestartHistory.RestartEvent> recent = new ArrayDeque<>();

    public RestartTracker(Clock clock) {
        this.clock = clock;
    }

    /** A restart because of {@code cause} (described as {@code "Class: message"}). */
    public void record(String cause) {
        times.addLast(clock.nanoTime());
        if (times.size() > MAX_TIMES) {
            times.removeFirst();
        }
        recent.addLast(new RestartHistory.RestartEvent(clock.currentTimeMillis(), cause));
        if (recent.size() > RECENT_LIMIT) {
            recent.removeFirst();
        }
    }

    public RestartHistory history() {
        long now = clock.nanoTime();
        while (!times.isEmpty() && now - times.peekFirst() >= WINDOW.toNanos()) {
            times.removeFirst();
        }
        return new RestartHistory(times.size(), WINDOW, List.copyOf(recent));
    }
}
