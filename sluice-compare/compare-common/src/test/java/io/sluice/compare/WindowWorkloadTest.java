package io.sluice.compare;

import org.junit.jupiter.api.Test;

import java.util.HashSet;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class WindowWorkloadTest {

    @Test
    void tumblingFiresEveryKeyOncePerSecondOfEventTime() {
        // 2,000,000 records are 2 s of event time; every second holds all 1,024 keys.
        WindowWorkload.Expected e = WindowWorkload.TUMBLING.expected(2_000_000);
        assertThat(e.windows()).isEqualTo(2 * 1024);
        long sum = 0;
        for (long v = 0; v < 2_000_000; v++) {
            sum += v / 1000;
        }
        assertThat(e.resultSum()).isEqualTo(sum);
    }

    @Test
    void sessionKeysComeBackAfterMoreThanTheGapSoEachBurstOfFourIsOneSession() {
        WindowWorkload w = WindowWorkload.SESSION;
        // a key's next burst is 400,000 records later: 10 s of event time, twice the 5 s gap
        assertThat(w.key(0)).isEqualTo(w.key(3)).isEqualTo(w.key(400_000)).isNotEqualTo(w.key(4));
        assertThat(w.eventTime(400_000) - w.eventTime(3)).isGreaterThan(w.windowMillis());
        WindowWorkload.Expected e = w.expected(800_000);
        assertThat(e.windows()).isEqualTo(800_000 / 4);
        assertThat(e.resultSum()).isEqualTo(800_000);
    }

    @Test
    void interleavedMapsContiguousSplitsBackToTheSharedSequence() {
        int p = 2;
        long perSplit = 10;
        Set<Long> seen = new HashSet<>();
        for (long v = 0; v < p * perSplit; v++) {
            seen.add(WindowWorkload.interleaved(v, p, perSplit));
        }
        assertThat(seen).hasSize(20).allMatch(x -> x >= 0 && x < 20);
        assertThat(WindowWorkload.interleaved(0, p, perSplit)).isZero();
        assertThat(WindowWorkload.interleaved(10, p, perSplit)).isEqualTo(1); // split 1 starts with 1
        assertThat(WindowWorkload.interleaved(11, p, perSplit)).isEqualTo(3);
    }

    @Test
    void onlyOptionalScenariosMayBeDeclaredNotRun() {
        Results r = new Results("x").notRun(Scenario.WINDOW_SESSION, "too old");
        assertThat(Results.notRunReason(Results.read(write(r)).headers(), "window-session")).isEqualTo("too old");
        assertThatThrownBy(() -> r.notRun(Scenario.THROUGHPUT, "no")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("not optional");
    }

    private static java.nio.file.Path write(Results r) {
        try {
            java.nio.file.Path f = java.nio.file.Files.createTempFile("notrun", ".tsv");
            r.write(f);
            return f;
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
