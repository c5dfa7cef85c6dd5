package io.sluice.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class BackpressureRatioTest {
    private final AtomicLong now = new AtomicLong(1_000);
    private final AtomicLong blocked = new AtomicLong();
    private final BackpressureRatio ratio = new BackpressureRatio(blocked::get, now::get, 100);

    @Test
    void isTheBlockedShareOfEachWindow() {
        assertThat(ratio.ratio()).isZero(); // no time passed yet
        now.addAndGet(1_000);
        blocked.addAndGet(250);
        assertThat(ratio.ratio()).isCloseTo(0.25, within(1e-9));
        now.addAndGet(1_000);
        blocked.addAndGet(1_000);
        assertThat(ratio.ratio()).isCloseTo(1.0, within(1e-9));
        now.addAndGet(500);
        assertThat(ratio.ratio()).isZero();
    }

    @Test
    void aReadingSoonerThanTheWindowRepeatsThePreviousValue() {
        now.addAndGet(200);
        blocked.addAndGet(100);
        assertThat(ratio.ratio()).isCloseTo(0.5, within(1e-9));
        now.addAndGet(50);
        blocked.addAndGet(50);
        assertThat(ratio.ratio()).isCloseTo(0.5, within(1e-9)); // window too short: previous value
        now.addAndGet(50);
        assertThat(ratio.ratio()).isCloseTo(0.5, within(1e-9)); // 50 of 100 blocked since the last reading
    }

    @Test
    void staysBetweenZeroAndOne() {
        now.addAndGet(100);
        blocked.addAndGet(500); // blocked time measured on another clock can overshoot a little
        assertThat(ratio.ratio()).isEqualTo(1.0);
    }
}
