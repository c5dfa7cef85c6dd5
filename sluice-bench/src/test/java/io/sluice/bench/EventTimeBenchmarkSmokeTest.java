package io.sluice.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The event-time benchmarks in smoke mode: they count and print medians; never how fast. */
class EventTimeBenchmarkSmokeTest {
    @Test
    void bothWindowScenariosCountRecordsWithCheckpoints() throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        List<EventTimeBenchmark.Result> results;
        try (PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8)) {
            results = EventTimeBenchmark.run(EventTimeBenchmark.Options.smoke(), out);
        }
        String output = bytes.toString(StandardCharsets.UTF_8);
        assertThat(results).as(output).hasSize(2);
        for (EventTimeBenchmark.Result r : results) {
            assertThat(r.runs()).as(output).hasSize(1).allMatch(EventTimeBenchmark.Run::valid)
                    .allSatisfy(run -> assertThat(run.records()).isPositive());
        }
        assertThat(output).contains("MEDIAN tumbling 1 s").contains("MEDIAN session window");
    }

    @Test
    void timerMemoryIsMeasuredForBothLayouts() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        List<TimerMemoryBenchmark.Result> results;
        try (PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8)) {
            results = TimerMemoryBenchmark.run(20_000, out);
        }
        assertThat(results).extracting(TimerMemoryBenchmark.Result::timers).containsExactly(20_000L, 20_000L);
        assertThat(results).extracting(TimerMemoryBenchmark.Result::keys).containsExactly(20_000L, 20L);
    }

    @Test
    void parsesScenarioAndSmoke() {
        EventTimeBenchmark.Options o = EventTimeBenchmark.parse(new String[] {"--scenario", "session", "--seconds", "3"});
        assertThat(o.scenarios()).containsExactly(EventTimeBenchmark.Scenario.SESSION_COUNT);
        assertThat(o.window().toSeconds()).isEqualTo(3);
        assertThat(EventTimeBenchmark.parse(new String[] {"--smoke"}).runs()).isEqualTo(1);
    }
}
