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
}
