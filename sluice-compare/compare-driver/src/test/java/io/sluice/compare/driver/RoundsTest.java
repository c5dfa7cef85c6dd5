package io.sluice.compare.driver;

import io.sluice.compare.Results;
import io.sluice.compare.Scenario;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class RoundsTest {

    @Test
    void everySystemTakesEveryPositionOnceInAsManyRoundsAsSystems() {
        List<String> s = List.of("sluice", "flink-1.20.5", "flink-2.3.0");
        assertThat(Rounds.order(s, 1)).containsExactly("sluice", "flink-1.20.5", "flink-2.3.0");
        assertThat(Rounds.order(s, 2)).containsExactly("flink-1.20.5", "flink-2.3.0", "sluice");
        assertThat(Rounds.order(s, 3)).containsExactly("flink-2.3.0", "sluice", "flink-1.20.5");
        assertThat(Rounds.order(s, 4)).isEqualTo(Rounds.order(s, 1));
        assertThat(Rounds.order(List.of(), 2)).isEmpty();
        assertThatThrownBy(() -> Rounds.order(s, 0)).hasMessageContaining("from 1");
    }

    @Test
    void medianIsTheMiddleValueOrTheMeanOfTheTwoMiddleOnes() {
        assertThat(Rounds.median(List.of(3.0, 1.0, 2.0))).isEqualTo(2.0);
        assertThat(Rounds.median(List.of(695_444.0, 1_009_408.0, 769_328.0))).isEqualTo(769_328.0);
        assertThat(Rounds.median(List.of(4.0, 1.0, 3.0, 2.0))).isEqualTo(2.5);
        assertThat(Rounds.median(List.of(7.0))).isEqualTo(7.0);
        assertThat(Rounds.median(List.of(1.0, Double.NaN, 2.0))).isNaN();
        assertThatThrownBy(() -> Rounds.median(List.of())).hasMessageContaining("no values");
    }

    private static Results.Parsed file(String system, double recordsPerS, Double p99) {
        Results r = new Results(system).header("version", "v-" + system).header("started", "round");
        r.add(Scenario.KAFKA_EXACTLY_ONCE, "eo", "records_per_s", recordsPerS);
        if (p99 != null) {
            r.add(Scenario.KAFKA_EXACTLY_ONCE, "eo", "visibility_p99_ms", p99);
        }
        return new Results.Parsed(new LinkedHashMap<>(Map.of("system", system, "version", "v-" + system)), r.rows());
    }

    @Test
    void theMedianFileHasEachFigureMedianAndLeavesOutAFigureSomeRoundLacks() {
        List<Results.Parsed> rounds = List.of(file("sluice", 695_444, 1_151.4), file("sluice", 769_328, null),
                file("sluice", 1_009_408, 1_018.1));

        Results median = Rounds.medianOf("sluice", rounds);

        assertThat(median.rows()).extracting(Results.Row::metric, Results.Row::value)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("records_per_s", 769_328.0));
        assertThat(median.rows()).allMatch(r -> r.system().equals("sluice"));
    }

    @Test
    void theTableShowsTheMedianAndEveryRoundsFigurePerSystem() {
        Map<String, List<Results.Parsed>> perSystem = new LinkedHashMap<>();
        perSystem.put("sluice", List.of(file("sluice", 3_000, 1_010.0), file("sluice", 1_000, 1_030.0),
                file("sluice", 2_000, 1_020.0)));
        perSystem.put("flink-2.3.0", Arrays.asList(file("flink-2.3.0", 1_500, 1_000.0), null,
                file("flink-2.3.0", 2_500, 1_040.0)));

        String table = Rounds.table(List.of("sluice", "flink-2.3.0"), perSystem, 3);

        assertThat(table).contains("| kafka-exactly-once | eo | records_per_s | 2,000 (3,000 / 1,000 / 2,000) |"
                + " missing (1,500 / missing / 2,500) |");
        assertThat(table).contains("| kafka-exactly-once | eo | visibility_p99_ms | 1,020 (1,010 / 1,030 / 1,020) |");
    }
}
