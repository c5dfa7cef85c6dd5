package io.sluice.restart;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.util.ManualClock;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class RestartTrackerTest {
    private final ManualClock clock = new ManualClock();
    private final RestartTracker tracker = new RestartTracker(clock);

    @Test
    void countsRestartsWithinTheLastTenMinutesAndKeepsTheLatestCauses() {
        assertThat(tracker.history()).isEqualTo(RestartHistory.NONE);
        long firstAt = clock.currentTimeMillis();
        tracker.record("java.lang.RuntimeException: first");
        clock.advance(Duration.ofMinutes(5));
        tracker.record("java.lang.RuntimeException: second");

        RestartHistory h = tracker.history();
        assertThat(h.restartsInWindow()).isEqualTo(2);
        assertThat(h.window()).isEqualTo(Duration.ofMinutes(10));
        assertThat(h.recent()).extracting(RestartHistory.RestartEvent::cause)
                .containsExactly("java.lang.RuntimeException: first", "java.lang.RuntimeException: second");
        assertThat(h.recent().get(0).timestampMillis()).isEqualTo(firstAt);

        clock.advance(Duration.ofMinutes(5).minusMillis(1));
        assertThat(tracker.history().restartsInWindow()).as("the first is 1 ms short of 10 minutes old").isEqualTo(2);
        clock.advance(Duration.ofMillis(1));
        assertThat(tracker.history().restartsInWindow()).isEqualTo(1);
        assertThat(tracker.history().recent()).as("the causes are kept beyond the window").hasSize(2);
    }

    @Test
    void keepsOnlyTheLatestCausesButCountsEveryRestartOfACrashLoop() {
        for (int i = 0; i < 25; i++) {
            tracker.record("cause " + i);
            clock.advance(Duration.ofSeconds(1));
        }
        RestartHistory h = tracker.history();
        assertThat(h.restartsInWindow()).isEqualTo(25);
        assertThat(h.recent()).hasSize(RestartTracker.RECENT_LIMIT);
        assertThat(h.recent().get(0).cause()).isEqualTo("cause 15");
        assertThat(h.recent().get(RestartTracker.RECENT_LIMIT - 1).cause()).isEqualTo("cause 24");
    }
}
