package io.sluice.jobmaster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class RecoveryBackoffTest {
    @Test
    void theDefaultDoublesFrom100MillisAndNeverWaitsMoreThanOneSecond() {
        long seed = System.nanoTime();
        SplittableRandom random = new SplittableRandom(seed);
        for (int attempt = 1; attempt <= 50; attempt++) {
            Duration d = RecoveryBackoff.DEFAULT.delayAfter(attempt, random);
            double base = Math.min(1000, 100 * Math.pow(2, attempt - 1));
            assertThat(d.toMillis()).as("attempt %d, seed %d", attempt, seed)
                    .isBetween((long) Math.floor(base * 0.8), (long) Math.min(1000, Math.ceil(base * 1.2)));
            assertThat(d).isLessThanOrEqualTo(Duration.ofSeconds(1));
        }
    }

    @Test
    void withoutJitterTheDelaysAreExact() {
        RecoveryBackoff b = new RecoveryBackoff(Duration.ofMillis(100), Duration.ofSeconds(1), 2.0, 0);
        SplittableRandom random = new SplittableRandom(1);
        assertThat(b.delayAfter(1, random)).isEqualTo(Duration.ofMillis(100));
        assertThat(b.delayAfter(4, random)).isEqualTo(Duration.ofMillis(800));
        assertThat(b.delayAfter(5, random)).isEqualTo(Duration.ofSeconds(1));
        assertThat(b.delayAfter(500, random)).isEqualTo(Duration.ofSeconds(1));
    }

    @Test
    void unreadableCheckpointsWaitSlowly() {
        SplittableRandom random = new SplittableRandom(3);
        assertThat(RecoveryBackoff.UNUSABLE_CHECKPOINTS.delayAfter(1, random)).isGreaterThanOrEqualTo(Duration.ofSeconds(4));
        assertThat(RecoveryBackoff.UNUSABLE_CHECKPOINTS.delayAfter(100, random)).isLessThanOrEqualTo(Duration.ofMinutes(1));
    }

    @Test
    void rejectsNonsense() {
        assertThatThrownBy(() -> new RecoveryBackoff(Duration.ofSeconds(2), Duration.ofSeconds(1), 2, 0.2))
                .hasMessageContaining("Invalid recovery backoff");
    }
}
