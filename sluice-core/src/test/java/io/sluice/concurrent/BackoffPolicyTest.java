package io.sluice.concurrent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.SplittableRandom;
import java.util.random.RandomGenerator;
import org.junit.jupiter.api.Test;

class BackoffPolicyTest {
    private static final BackoffPolicy RECOVERY = BackoffPolicy.builder().initialDelay(ms(100)).multiplier(2.0)
            .maxDelay(Duration.ofSeconds(1)).jitter(0.2).build();

    @Test
    void exponentialDoublesUpToTheCap() {
        BackoffPolicy p = BackoffPolicy.exponential(ms(100), Duration.ofSeconds(10));
        assertThat(p.delayAfter(1)).isEqualTo(ms(100));
        assertThat(p.delayAfter(2)).isEqualTo(ms(200));
        assertThat(p.delayAfter(7)).isEqualTo(ms(6_400));
        assertThat(p.delayAfter(8)).isEqualTo(Duration.ofSeconds(10));
        assertThat(p.delayAfter(1_000)).isEqualTo(Duration.ofSeconds(10));
        assertThat(p.delayAfter(Integer.MAX_VALUE)).isEqualTo(Duration.ofSeconds(10));
        assertThat(p.delayAfter(0)).as("below 1 counts as 1").isEqualTo(ms(100));
    }

    @Test
    void aNonIntegerMultiplierGrowsByItsFactor() {
        BackoffPolicy p = BackoffPolicy.builder().initialDelay(ms(100)).multiplier(1.5).maxDelay(Duration.ofSeconds(1)).build();
        assertThat(p.delayAfter(1)).isEqualTo(ms(100));
        assertThat(p.delayAfter(2)).isEqualTo(ms(150));
        assertThat(p.delayAfter(3)).isEqualTo(ms(225));
        assertThat(p.delayAfter(6)).isEqualTo(Duration.ofNanos(759_375_000));
        assertThat(p.delayAfter(7)).isEqualTo(Duration.ofSeconds(1));
    }

    @Test
    void fixedWaitsTheSameEveryTime() {
        BackoffPolicy p = BackoffPolicy.fixed(ms(500));
        assertThat(p.delayAfter(1)).isEqualTo(ms(500));
        assertThat(p.delayAfter(9)).isEqualTo(ms(500));
        assertThat(p.maxAttempts()).isEmpty();
        assertThat(p.deadline()).isEmpty();
    }

    @Test
    void jitterVariesEachWaitWithinTheFractionEitherWay() {
        assertThat(RECOVERY.delayAfter(1, always(0.0))).isEqualTo(ms(80));
        assertThat(RECOVERY.delayAfter(1, always(0.5))).isEqualTo(ms(100));
        assertThat(RECOVERY.delayAfter(3, always(0.75))).isEqualTo(ms(440));
        assertThat(RECOVERY.delayAfter(5, always(0.0))).as("below the cap when varied down").isEqualTo(ms(800));
    }

    @Test
    void aVariedWaitNeverExceedsTheCap() {
        long seed = System.nanoTime();
        System.out.println("BackoffPolicyTest seed " + seed);
        SplittableRandom random = new SplittableRandom(seed);
        for (int attempt = 1; attempt < 50; attempt++) {
            Duration d = RECOVERY.delayAfter(attempt, random);
            assertThat(d).isLessThanOrEqualTo(Duration.ofSeconds(1));
            Duration base = BackoffPolicy.exponential(ms(100), Duration.ofSeconds(1)).delayAfter(attempt);
            assertThat(d.toNanos()).isBetween((long) (base.toNanos() * 0.8) - 1, (long) (base.toNanos() * 1.2) + 1);
        }
        assertThat(RECOVERY.delayAfter(5, always(0.999_999))).as("varied up at the cap").isEqualTo(Duration.ofSeconds(1));
    }

    @Test
    void drawsFromTheRandomSourceOnlyWithJitter() {
        RandomGenerator mustNotBeUsed = () -> {
            throw new AssertionError("drawn from");
        };
        assertThat(BackoffPolicy.exponential(ms(100), Duration.ofSeconds(1)).delayAfter(3, mustNotBeUsed))
                .isEqualTo(ms(400));
        assertThatThrownBy(() -> RECOVERY.delayAfter(3)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("random");
    }

    @Test
    void aSeededRandomGivesTheSameWaits() {
        long seed = 42;
        SplittableRandom a = new SplittableRandom(seed);
        SplittableRandom b = new SplittableRandom(seed);
        for (int attempt = 1; attempt < 10; attempt++) {
            assertThat(RECOVERY.delayAfter(attempt, a)).isEqualTo(RECOVERY.delayAfter(attempt, b));
        }
    }

    @Test
    void allowsRetriesUpToTheAttemptLimitAndBeforeTheDeadline() {
        BackoffPolicy limited = BackoffPolicy.fixed(ms(500)).toBuilder().maxAttempts(3).build();
        assertThat(limited.allowsRetry(1, Duration.ZERO)).isTrue();
        assertThat(limited.allowsRetry(2, Duration.ofDays(1))).isTrue();
        assertThat(limited.allowsRetry(3, Duration.ZERO)).isFalse();
        assertThat(limited.allowsRetry(2)).isTrue();
        assertThat(limited.allowsRetry(3)).isFalse();
        BackoffPolicy timed = BackoffPolicy.fixed(ms(200)).toBuilder().deadline(Duration.ofSeconds(1)).build();
        assertThat(timed.allowsRetry(1_000, ms(999))).isTrue();
        assertThat(timed.allowsRetry(1, Duration.ofSeconds(1))).isFalse();
        assertThatThrownBy(() -> timed.allowsRetry(1)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("elapsed");
        assertThat(BackoffPolicy.fixed(ms(1)).allowsRetry(Integer.MAX_VALUE, Duration.ofDays(365))).isTrue();
    }

    @Test
    void refusesInconsistentSettings() {
        assertThatThrownBy(() -> BackoffPolicy.exponential(Duration.ofSeconds(2), Duration.ofSeconds(1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("initial PT2S, max PT1S");
        assertThatThrownBy(() -> BackoffPolicy.builder().initialDelay(ms(-1)).build())
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> BackoffPolicy.builder().initialDelay(ms(1)).multiplier(0.5).build())
                .hasMessageContaining("multiplier 0.5");
        assertThatThrownBy(() -> BackoffPolicy.builder().initialDelay(ms(1)).jitter(1.0).build())
                .hasMessageContaining("jitter 1.0");
        assertThatThrownBy(() -> BackoffPolicy.builder().initialDelay(ms(1)).multiplier(Double.NaN).build())
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> BackoffPolicy.builder().build()).hasMessageContaining("no initial delay");
        assertThatThrownBy(() -> BackoffPolicy.builder().maxAttempts(0)).hasMessageContaining("at least one");
        assertThatThrownBy(() -> BackoffPolicy.builder().deadline(Duration.ZERO)).hasMessageContaining("positive");
    }

    @Test
    void equalSettingsMakeEqualPolicies() {
        assertThat(RECOVERY.toBuilder().build()).isEqualTo(RECOVERY).hasSameHashCodeAs(RECOVERY);
        assertThat(RECOVERY.toBuilder().maxAttempts(2).build()).isNotEqualTo(RECOVERY);
        assertThat(BackoffPolicy.builder().initialDelay(ms(7)).multiplier(1).build()).isEqualTo(BackoffPolicy.fixed(ms(7)));
    }

    @Test
    void describesItself() {
        assertThat(RECOVERY).hasToString("backoff 100 ms x2 up to 1 s, +/-20 %");
        assertThat(BackoffPolicy.fixed(ms(500)).toBuilder().maxAttempts(10).build())
                .hasToString("backoff 500 ms, at most 10 attempts");
        assertThat(BackoffPolicy.fixed(ms(200)).toBuilder().deadline(Duration.ofSeconds(1)).build())
                .hasToString("backoff 200 ms, for at most 1 s");
    }

    static Duration ms(long millis) {
        return Duration.ofMillis(millis);
    }

    /** A generator whose nextDouble() is always {@code value}: 0.0 is -jitter, 0.5 none, towards 1.0 +jitter. */
    static RandomGenerator always(double value) {
        return new RandomGenerator() {
            @Override
            public long nextLong() {
                throw new UnsupportedOperationException();
            }

            @Override
            public double nextDouble() {
                return value;
            }
        };
    }
}
