package io.sluice.restart;

import java.time.Duration;
import java.util.List;

/**
 * A job's recent restarts as shown in its status, so that a crash loop is visible rather than
 * silent: how many restarts fell within the last {@code window}, and the latest ones with their
 * causes. Immutable.
 *
 * @param restartsInWindow restarts within the last {@code window} (under the current job master)
 * @param window           the length of that window ({@link RestartTracker#WINDOW})
 * @param recent           the latest restarts, oldest first, at most {@link RestartTracker#RECENT_LIMIT}
 */
public record RestartHistory(int restartsInWindow, Duration window, List<RestartEvent> recent) implements java.io.Serializable {
    public static final RestartHistory NONE = new RestartHistory(0, RestartTracker.WINDOW, List.of());

    public RestartHistory {
        recent = List.copyOf(recent);
    }

    /** One restart: when its failure happened (wall clock) and its root cause ({@code "Class: message"}). */
    public record RestartEvent(long timestampMillis, String cause) implements java.io.Serializable {
    }
}
