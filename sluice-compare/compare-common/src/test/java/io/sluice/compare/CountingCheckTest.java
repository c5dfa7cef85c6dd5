package io.sluice.compare;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CountingCheckTest {

    /** What the counting job's sink receives when every record is counted once, simulated. */
    private static long[] simulate(long records, int keys, long skip, long twice) {
        Map<Long, Long> counts = new HashMap<>();
        long received = 0;
        long sum = 0;
        long max = 0;
        for (long v = 0; v < records; v++) {
            if (v == skip) {
                continue;
            }
            for (int i = 0; i < (v == twice ? 2 : 1); i++) {
                long c = counts.merge(v % keys, 1L, Long::sum);
                received++;
                sum += c;
                max = Math.max(max, c);
            }
        }
        return new long[] {received, sum, max};
    }

    @Test
    void exactCountsPass() {
        CountingCheck check = new CountingCheck(1_000, 10);
        long[] r = simulate(1_000, 10, -1, -1);
        assertThat(check.perKey()).isEqualTo(100);
        assertThat(check.expectedSum()).isEqualTo(10 * 5050);
        assertThat(check.problem(r[0], r[1], r[2])).isEmpty();
    }

    @Test
    void aLostRecordFails() {
        long[] r = simulate(1_000, 10, 17, -1);
        assertThat(new CountingCheck(1_000, 10).problem(r[0], r[1], r[2])).get().asString()
                .contains("emitted 999 counts").contains("lost or counted twice");
    }

    @Test
    void aRecordCountedTwiceFails() {
        long[] r = simulate(1_000, 10, -1, 990);
        assertThat(new CountingCheck(1_000, 10).problem(r[0], r[1], r[2])).get().asString()
                .contains("largest count of 101");
    }

    @Test
    void aLossAndADuplicateThatKeepTheRecordCountStillFail() {
        long[] r = simulate(1_000, 10, 3, 994);
        assertThat(r[0]).isEqualTo(1_000);
        assertThat(new CountingCheck(1_000, 10).problem(r[0], r[1], r[2])).isPresent();
    }

    @Test
    void recordsMustBeAMultipleOfTheKeys() {
        assertThatThrownBy(() -> new CountingCheck(1_001, 10)).hasMessageContaining("multiple of the keys");
    }
}
