package io.sluice.examples.jobs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The examples run on their own, as {@code java -cp sluice-examples.jar:sluice.jar <Main>} does:
 * {@code env.execute} finds the embedded local cluster of sluice-runtime (on the test class path)
 * and returns when the job has finished.
 */
class ExamplesStandaloneTest {
    @TempDir
    Path dir;

    /** The last count per key of every {@code key,count} line under {@code output}. */
    private static Map<String, Long> lastCounts(Path output) throws Exception {
        Map<String, Long> last = new HashMap<>();
        try (Stream<Path> files = Files.list(output)) {
            for (Path f : files.toList()) {
                for (String line : Files.readAllLines(f)) {
                    int comma = line.lastIndexOf(',');
                    last.merge(line.substring(0, comma), Long.parseLong(line.substring(comma + 1)), Math::max);
                }
            }
        }
        return last;
    }

    @Test
    void wordCountCountsEveryWordOfTheFile() throws Exception {
        Path input = dir.resolve("text.txt");
        Files.write(input, List.of("To be, or not to be:", "that is the question.", "", "TO BE"));
        Path output = dir.resolve("counts");
        WordCount.main(new String[] {"--input", input.toString(), "--output", output.toString()});
        assertThat(lastCounts(output)).containsExactlyInAnyOrderEntriesOf(Map.of(
                "to", 3L, "be", 3L, "or", 1L, "not", 1L, "that", 1L, "is", 1L, "the", 1L, "question", 1L));
    }

    @Test
    void keyedCountingCountsEveryKeyExactly() throws Exception {
        Path output = dir.resolve("counts");
        KeyedCountingExample.main(new String[] {"--records", "1000", "--keys", "8", "--rate", "0",
                "--output", output.toString()});
        Map<String, Long> expected = new HashMap<>();
        for (int k = 0; k < 8; k++) {
            expected.put(Integer.toString(k), 125L);
        }
        assertThat(lastCounts(output)).isEqualTo(expected);
    }

    @Test
    void anUnknownArgumentIsRejectedNamingTheKnownOnes() {
        assertThatThrownBy(() -> WordCount.main(new String[] {"--inptu", "x"}))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("--input").hasMessageContaining("--output");
    }

    @Test
    void clickSessionsGroupsTheSampleFileIntoSessionsPerUser() throws Exception {
        Path input = Path.of("..", "docs", "examples", "clicks.csv");
        Path output = dir.resolve("sessions");
        ClickSessions.main(new String[] {"--input", input.toString(), "--output", output.toString(), "--gap", "5s"});
        // ann: 1000, 2500, 4000, 7000 (each < 5 s after the previous) | 17000, 18000 | 30000;
        // bob: 1500, 3200 (read after 4000: 0.8 s out of order, within the 5 s disorder) | 9000 | 21000;
        // cat: 6000, 8200 | 16500, 19000. A session ends 5 s after its last click.
        assertThat(allLines(output)).containsExactlyInAnyOrder(
                "ann,1000,12000,4,/home",
                "ann,17000,23000,2,/home",
                "ann,30000,35000,1,/orders",
                "bob,1500,8200,2,/home",
                "bob,9000,14000,1,/about",
                "bob,21000,26000,1,/home",
                "cat,6000,13200,2,/home",
                "cat,16500,24000,2,/cart");
        // Nothing in the sample is more than 5 s out of order, so no click is late.
        assertThat(allLines(Path.of(output + "-late"))).isEmpty();
    }

    @Test
    void clickSessionsRejectsABadGapSayingWhatItTakes() {
        assertThatThrownBy(() -> ClickSessions.main(new String[] {"--input", "x", "--output", "y", "--gap", "5 secs"}))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("--gap takes a duration such as 500ms, 5s");
    }

    private static List<String> allLines(Path directory) throws Exception {
        List<String> all = new java.util.ArrayList<>();
        if (!Files.exists(directory)) {
            return all;
        }
        try (Stream<Path> files = Files.list(directory)) {
            for (Path f : files.toList()) {
                all.addAll(Files.readAllLines(f));
            }
        }
        return all;
    }
}
