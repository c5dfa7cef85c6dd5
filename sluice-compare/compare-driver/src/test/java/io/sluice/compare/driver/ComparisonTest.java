package io.sluice.compare.driver;

import io.sluice.compare.Results;
import io.sluice.compare.driver.Comparison.Key;
import org.junit.jupiter.api.Test;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class ComparisonTest {

    static Results.Parsed parsed(String system, Map<String, String> headers, Object... rows) {
        Map<String, String> h = new LinkedHashMap<>();
        h.put("system", system);
        h.putAll(headers);
        List<Results.Row> list = new java.util.ArrayList<>();
        for (int i = 0; i < rows.length; i += 4) {
            list.add(new Results.Row(system, (String) rows[i], (String) rows[i + 1], (String) rows[i + 2],
                    ((Number) rows[i + 3]).doubleValue()));
        }
        return new Results.Parsed(h, list);
    }

    @Test
    void ordersByScenarioThenVariantThenMetricAsFirstSeen() {
        Results.Parsed sluice = parsed("sluice", Map.of(),
                "throughput", "v", "records_per_s", 10,
                "task-failover", "N=1, D=0 ms", "to_running_ms", 5,
                "task-failover", "N=10, D=0 ms", "to_running_ms", 6,
                "task-failover", "N=1, D=0 ms", "metadata_reads", 0,
                "mystery", "x", "m", 1);
        Results.Parsed flink = parsed("flink-1.13.6", Map.of(),
                "task-failover", "N=10, D=0 ms", "to_running_ms", 60,
                "task-failover", "N=1, D=0 ms", "extra_ms", 7,
                "status-during-stall", "a", "p99_ms", 9);
        Comparison c = Comparison.of(List.of("sluice", "flink-1.13.6"), Map.of("sluice", sluice,
                "flink-1.13.6", flink));

        assertThat(c.scenarios()).containsExactly("status-during-stall", "task-failover", "throughput", "mystery");
        assertThat(c.keys("task-failover")).containsExactly(
                new Key("task-failover", "N=1, D=0 ms", "to_running_ms"),
                new Key("task-failover", "N=1, D=0 ms", "metadata_reads"),
                new Key("task-failover", "N=1, D=0 ms", "extra_ms"),
                new Key("task-failover", "N=10, D=0 ms", "to_running_ms"));
        assertThat(c.value(new Key("task-failover", "N=10, D=0 ms", "to_running_ms"), "flink-1.13.6")).isEqualTo(60.0);
        assertThat(c.value(new Key("task-failover", "N=1, D=0 ms", "extra_ms"), "sluice")).isNull();
        assertThat(c.others()).containsExactly("flink-1.13.6");
        assertThat(c.rowCount("sluice")).isEqualTo(5);
        assertThat(c.warnings()).isEmpty();
    }

    @Test
    void warnsAboutDuplicatesAndForeignSystemNames() {
        Results.Parsed sluice = parsed("sluice", Map.of(),
                "throughput", "v", "records_per_s", 10,
                "throughput", "v", "records_per_s", 12);
        Results.Parsed odd = new Results.Parsed(Map.of("system", "flink-9"),
                List.of(new Results.Row("flink-9", "throughput", "v", "records_per_s", 3)));
        Comparison c = Comparison.of(List.of("sluice", "flink-1.20.5"), Map.of("sluice", sluice,
                "flink-1.20.5", odd));

        assertThat(c.value(new Key("throughput", "v", "records_per_s"), "sluice")).isEqualTo(12.0);
        assertThat(c.value(new Key("throughput", "v", "records_per_s"), "flink-1.20.5")).isEqualTo(3.0);
        assertThat(c.warnings()).hasSize(3);
        assertThat(String.join("\n", c.warnings())).contains("more than once").contains("says system 'flink-9'")
                .contains("rows for system [flink-9]");
    }
}
