package io.sluice.network;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** {@link BufferDebloater} on a manual clock: the writer's sends and blocked time are played by the test. */
class BufferDebloaterTest {
    private static final int MAX = 32 * 1024;
    private static final long TARGET = TimeUnit.MILLISECONDS.toNanos(100);
    private static final long PERIOD = BufferDebloater.PERIOD_NANOS;

    private long now = 1_000_000_000L;
    private long blocked;
    private long taken;

    @Test
    void withoutBackpressureBuffersStayFullSize() {
        BufferDebloater debloater = new BufferDebloater(MAX, TARGET, 8, () -> now, () -> blocked, () -> taken);
        for (int period = 0; period < 10; period++) {
            now += PERIOD;
            blocked += PERIOD / 20; // blocked 5 % of the time: below the tenth that counts as backpressure
            taken += 1_000;
            assertThat(debloater.afterBufferSent()).isEqualTo(MAX);
        }
    }

    @Test
    void aBackpressuredWriterConvergesToTheTargetTimesItsRateSpreadOverItsSlots() {
        BufferDebloater debloater = new BufferDebloater(MAX, TARGET, 8, () -> now, () -> blocked, () -> taken);
        // 400,000 bytes a second reach the consumers: 80,000 per period, 40,000 in 100 ms, 5,000 per slot.
        int size = MAX;
        for (int period = 0; period < 12; period++) {
            now += PERIOD;
            taken += 80_000;
            blocked += PERIOD * 9 / 10; // blocked on full channels most of the period
            size = debloater.afterBufferSent();
        }
        assertThat(size).isBetween(4_500, 5_500);
        assertThat(debloater.size()).isEqualTo(size);
    }

    @Test
    void eachPeriodMovesHalfWayAndNeverBelowTheMinimum() {
        BufferDebloater debloater = new BufferDebloater(MAX, TARGET, 8, () -> now, () -> blocked, () -> taken);
        // A stalled consumer: one byte got through in a whole period, blocked all of it.
        now += PERIOD;
        blocked += PERIOD;
        int first = debloater.afterBufferSent();
        assertThat(first).isEqualTo((MAX + BufferDebloater.MIN_BYTES) / 2);
        int size = first;
        for (int period = 0; period < 20; period++) {
            now += PERIOD;
            blocked += PERIOD;
            size = debloater.afterBufferSent();
        }
        assertThat(size).isEqualTo(BufferDebloater.MIN_BYTES);
    }

    @Test
    void theSizeGrowsBackOnceTheBackpressureEnds() {
        BufferDebloater debloater = new BufferDebloater(MAX, TARGET, 8, () -> now, () -> blocked, () -> taken);
        for (int period = 0; period < 20; period++) {
            now += PERIOD;
            blocked += PERIOD;
            debloater.afterBufferSent();
        }
        assertThat(debloater.size()).isEqualTo(BufferDebloater.MIN_BYTES);
        int size = 0;
        for (int period = 0; period < 20; period++) {
            now += PERIOD;
            size = debloater.afterBufferSent();
        }
        assertThat(size).isEqualTo(MAX);
    }

    @Test
    void nothingChangesWithinAPeriod() {
        BufferDebloater debloater = new BufferDebloater(MAX, TARGET, 8, () -> now, () -> blocked, () -> taken);
        now += PERIOD - 1;
        blocked += PERIOD;
        assertThat(debloater.afterBufferSent()).isEqualTo(MAX);
        now += 1;
        assertThat(debloater.afterBufferSent()).isLessThan(MAX);
    }

    @Test
    void aZeroTargetTurnsTheSizingOffAndReadsNoClock() {
        BufferDebloater debloater = new BufferDebloater(MAX, 0, 8, () -> {
            throw new AssertionError("the clock was read");
        }, () -> {
            throw new AssertionError("the blocked time was read");
        }, () -> {
            throw new AssertionError("the bytes taken were read");
        });
        assertThat(debloater.afterBufferSent()).isEqualTo(MAX);
        assertThat(debloater.size()).isEqualTo(MAX);
    }

    /**
     * A channel of 4 slots whose consumer drains 80,000 bytes a second, simulated in 1 ms steps: the
     * writer fills a slot whenever one is free. When the size drops, the slots still hold full
     * buffers, so the writer hands over one small buffer per large one drained. The size must settle
     * at 80,000 × 0.3 ÷ 4 = 6,000 bytes without falling to the minimum on the way: measured by the
     * bytes handed over, as a first version did, it fell to 1,024 (the consumer seemed 5 times slower).
     */
    @Test
    void whileTheSlotsStillHoldLargerBuffersTheSizeDoesNotOvershoot() {
        BufferDebloater debloater = new BufferDebloater(MAX, TimeUnit.MILLISECONDS.toNanos(300), 4, () -> now,
                () -> blocked, () -> taken);
        java.util.ArrayDeque<Integer> slots = new java.util.ArrayDeque<>();
        int size = MAX;
        long reading = 0; // bytes left of the buffer the consumer works on
        int smallest = MAX;
        for (int ms = 0; ms < 30_000; ms++) {
            now += 1_000_000;
            reading -= 80;
            if (reading <= 0 && !slots.isEmpty()) {
                int next = slots.poll();
                taken += next;
                reading += next;
            }
            if (slots.size() < 4) {
                slots.add(size);
                size = debloater.afterBufferSent();
                smallest = Math.min(smallest, size);
            } else {
                blocked += 1_000_000;
            }
        }
        System.out.printf("simulated: smallest size %d bytes, final %d%n", smallest, size);
        assertThat(size).isBetween(5_000, 7_000);
        assertThat(smallest).isGreaterThanOrEqualTo(4_000);
    }

    @Test
    void aMaximumBelowTheMinimumIsTheMinimum() {
        BufferDebloater debloater = new BufferDebloater(512, TARGET, 8, () -> now, () -> blocked, () -> taken);
        now += PERIOD;
        blocked += PERIOD;
        assertThat(debloater.afterBufferSent()).isEqualTo(512);
    }

    @Test
    void badArgumentsAreRefused() {
        assertThatThrownBy(() -> new BufferDebloater(MAX, -1, 8, () -> now, () -> blocked, () -> taken))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("targetNanos -1");
        assertThatThrownBy(() -> new BufferDebloater(MAX, TARGET, 0, () -> now, () -> blocked, () -> taken))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("slots 0");
    }
}
