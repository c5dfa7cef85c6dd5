package io.sluice.concurrent;

import static io.sluice.concurrent.BackoffPolicyTest.ms;
import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.util.ManualClock;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class BackoffTest {
    private final ManualClock clock = new ManualClock();

    @Test
    void countsFailedAttemptsAndGivesTheNextWait() {
        Backoff b = BackoffPolicy.exponential(ms(100), Duration.ofSeconds(1)).start(clock, null);
        assertThat(b.failedAttempts()).isZero();
        assertThat(b.nextDelay()).contains(ms(100));
        assertThat(b.nextDelay()).contains(ms(200));
        assertThat(b.nextDelay()).contains(ms(400));
        assertThat(b.failedAttempts()).isEqualTo(3);
        b.reset();
        assertThat(b.failedAttempts()).isZero();
        assertThat(b.nextDelay()).contains(ms(100));
    }

    @Test
    void stopsAtTheAttemptLimit() {
        Backoff b = BackoffPolicy.fixed(ms(500)).toBuilder().maxAttempts(3).build().start(clock, null);
        assertThat(b.nextDelay()).contains(ms(500)); // attempt 1 failed: attempt 2 follows
        assertThat(b.nextDelay()).contains(ms(500)); // attempt 2 failed: attempt 3 follows
        assertThat(b.nextDelay()).isEmpty(); // attempt 3 was the last
        assertThat(b.failedAttempts()).isEqualTo(3);
    }

    @Test
    void cutsTheLastWaitAtTheDeadlineAndStopsOnceItPassed() {
        Backoff b = BackoffPolicy.fixed(ms(200)).toBuilder().deadline(Duration.ofSeconds(1)).build().start(clock, null);
        assertThat(b.nextDelay()).contains(ms(200));
        clock.advance(ms(900));
        assertThat(b.elapsed()).isEqualTo(ms(900));
        assertThat(b.nextDelay()).as("only what is left until the deadline").contains(ms(100));
        clock.advance(ms(100));
        assertThat(b.nextDelay()).isEmpty();
        b.reset();
        assertThat(b.elapsed()).isZero();
        assertThat(b.nextDelay()).contains(ms(200));
    }

    @Test
    void drawsItsJitterFromTheGivenRandom() {
        Backoff b = BackoffPolicy.builder().initialDelay(ms(100)).maxDelay(Duration.ofSeconds(1)).jitter(0.2).build()
                .start(clock, BackoffPolicyTest.always(0.0));
        assertThat(b.nextDelay()).isEqualTo(Optional.of(ms(80)));
        assertThat(b.nextDelay()).isEqualTo(Optional.of(ms(160)));
    }
}
