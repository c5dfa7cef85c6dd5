package io.sluice.operators;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.api.eventtime.WatermarkStrategy;
import io.sluice.api.errors.InvalidJobException;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Timestamp assignment, periodic watermarks and idleness of one subtask, on a manual clock. */
class TimestampsAndWatermarksOperatorTest {

    private static OperatorHarness<Long> harness(WatermarkStrategy<Long> strategy) throws Exception {
        return new OperatorHarness<>(new TimestampsAndWatermarksOperator<>(strategy, "Timestamps/Watermarks"), null);
    }

    @Test
    void boundedOutOfOrdernessTrailsTheHighestTimestampEveryInterval() throws Exception {
        OperatorHarness<Long> h = harness(WatermarkStrategy.<Long>forBoundedOutOfOrderness(Duration.ofMillis(100))
                .withTimestampAssigner((v, previous) -> v));
        h.element(1_000L);
        h.element(900L);
        assertThat(h.take()).containsExactly("1000@1000", "900@900");
        h.advance(0);
        assertThat(h.take()).containsExactly("wm 899");
        h.element(1_500L);
        h.advance(199);
        assertThat(h.take()).as("the interval (200 ms) has not passed").containsExactly("1500@1500");
        h.advance(1);
        assertThat(h.take()).containsExactly("wm 1399");
        h.advance(200);
        assertThat(h.take()).as("not advanced: nothing emitted").isEmpty();
    }

    @Test
    void monotonousTimestampsAndTheRecordsOwnTimestampWithoutAnAssigner() throws Exception {
        OperatorHarness<Long> h = harness(WatermarkStrategy.<Long>forMonotonousTimestamps().withEmitInterval(Duration.ZERO));
        h.element(5L, 42);
        h.advance(0);
        assertThat(h.take()).containsExactly("5@42", "wm 41");
    }

    @Test
    void idleAfterTheTimeoutAndActiveAgainBeforeTheNextRecord() throws Exception {
        OperatorHarness<Long> h = harness(WatermarkStrategy.<Long>forMonotonousTimestamps()
                .withTimestampAssigner((v, p) -> v).withIdleness(Duration.ofSeconds(1)).withEmitInterval(Duration.ZERO));
        h.element(10L);
        h.advance(999);
        assertThat(h.take()).containsExactly("10@10", "wm 9");
        h.advance(1);
        assertThat(h.take()).containsExactly("idle");
        h.advance(5_000);
        assertThat(h.take()).as("stays idle without repeating").isEmpty();
        h.element(20L);
        h.advance(0);
        assertThat(h.take()).containsExactly("active", "20@20", "wm 19");
    }

    /**
     * The emit interval is a duration: a wall clock stepped back an hour (NTP) does not hold the watermark for an
     * hour, which would hold every event-time window of the job. Before 2026-12-07 no watermark came until the wall
     * clock was back where it had been.
     */
    @Test
    void aWallClockSteppedBackDoesNotHoldTheWatermark() throws Exception {
        OperatorHarness<Long> h = harness(WatermarkStrategy.<Long>forMonotonousTimestamps()
                .withTimestampAssigner((v, p) -> v).withEmitInterval(Duration.ofMillis(200)));
        h.element(10L);
        h.advance(0);
        assertThat(h.take()).containsExactly("10@10", "wm 9");

        h.stepWallClock(Duration.ofHours(-1));
        h.element(20L);
        assertThat(h.millisUntilNextWork()).as("the next emission, from now").isEqualTo(200);
        h.advance(200);
        assertThat(h.take()).containsExactly("20@20", "wm 19");
    }

    /**
     * The idleness timeout is a duration too: a wall clock stepped forward an hour does not make a subtask whose
     * records keep coming idle, which would let the watermark downstream pass its records (and drop them as late).
     * Before 2026-12-07 the step alone turned it idle.
     */
    @Test
    void aWallClockSteppedForwardDoesNotMakeABusySubtaskIdle() throws Exception {
        OperatorHarness<Long> h = harness(WatermarkStrategy.<Long>forMonotonousTimestamps()
                .withTimestampAssigner((v, p) -> v).withIdleness(Duration.ofSeconds(1))
                .withEmitInterval(Duration.ofSeconds(10)));
        h.element(10L);
        h.advance(500);
        assertThat(h.take()).containsExactly("10@10", "wm 9");

        h.stepWallClock(Duration.ofHours(1));
        assertThat(h.take()).as("records came 500 ms ago").isEmpty();
        assertThat(h.millisUntilNextWork()).as("idle 1 s after the last record").isEqualTo(500);
        h.advance(499);
        assertThat(h.take()).isEmpty();
        h.advance(1);
        assertThat(h.take()).containsExactly("idle");
    }

    @Test
    void upstreamWatermarksAreReplacedExceptTheFinalOne() throws Exception {
        OperatorHarness<Long> h = harness(WatermarkStrategy.<Long>forMonotonousTimestamps().withTimestampAssigner((v, p) -> v));
        h.watermark(1_000_000);
        assertThat(h.take()).isEmpty();
        h.watermark(Long.MAX_VALUE);
        assertThat(h.take()).containsExactly("wm MAX");
        h.element(3L);
        h.advance(1_000);
        assertThat(h.take()).as("after the end no more watermarks").containsExactly("3@3");
    }

    @Test
    void aNegativeOutOfOrdernessIsRejectedNamingTheOperator() {
        assertThatThrownBy(() -> WatermarkStrategy.forBoundedOutOfOrderness(Duration.ofSeconds(-1)).validate("Clicks"))
                .isInstanceOf(InvalidJobException.class)
                .hasMessageContaining("'Clicks'").hasMessageContaining("negative").hasMessageContaining("Duration.ZERO");
    }
}
