package io.sluice.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.function.BinaryOperator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/** The output of the keyed counting example ("key,count" lines) and its expected final counts. Test code only. */
final class KeyedCounts {
    private static final Pattern LINE = Pattern.compile("(\\d+),(\\d+)");

    private KeyedCounts() {}

    /**
     * The highest count written per key (a replay after a restore writes lower counts again; the sink
     * is at-least-once, the state exactly-once). A line torn by a SIGKILLed writer does not match.
     */
    static Map<Long, Long> highest(Path output) throws IOException {
        return merged(output, Math::max);
    }

    /** The lowest count written per key (a restored job's first count for it). */
    static Map<Long, Long> lowest(Path output) throws IOException {
        return merged(output, Math::min);
    }

    private static Map<Long, Long> merged(Path output, BinaryOperator<Long> pick) throws IOException {
        Map<Long, Long> counts = new HashMap<>();
        if (!Files.isDirectory(output)) {
            return counts;
        }
        try (Stream<Path> parts = Files.list(output)) {
            for (Path part : parts.toList()) {
                for (String line : Files.readAllLines(part)) {
                    Matcher m = LINE.matcher(line);
                    if (m.matches()) {
                        counts.merge(Long.parseLong(m.group(1)), Long.parseLong(m.group(2)), pick);
                    }
                }
            }
        }
        return counts;
    }

    /** Records 0..records-1, key = value mod keys. */
    static Map<Long, Long> expected(long records, int keys) {
        Map<Long, Long> out = new HashMap<>();
        for (long k = 0; k < keys; k++) {
            out.put(k, records / keys + (k < records % keys ? 1 : 0));
        }
        return out;
    }

    static void assertExact(Path output, long records, int keys) throws IOException {
        assertThat(highest(output)).as("the final count of every key").isEqualTo(expected(records, keys));
    }
}
