package io.sluice.compare;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The result file one harness JVM writes: header lines {@code # key<TAB>value} (system, machine,
 * JVM, configuration), then one row per figure, {@code system<TAB>scenario<TAB>variant<TAB>metric<TAB>value}.
 * Tab-separated text so that every harness can write it without a JSON library on its classpath
 * (each Flink version brings its own shaded one).
 *
 * <p>Thread rules: not thread-safe; one harness thread adds rows. The file is rewritten after every
 * scenario ({@link #write}), so a harness that fails late still leaves the figures it had.
 */
public final class Results {
    /** One figure. */
    public record Row(String system, String scenario, String variant, String metric, double value) {
    }

    /** A parsed result file. */
    public record Parsed(Map<String, String> headers, List<Row> rows) {
    }

    private final String system;
    private final Map<String, String> headers = new LinkedHashMap<>();
    private final List<Row> rows = new ArrayList<>();

    public Results(String system) {
        this.system = system;
        headers.put("system", system);
    }

    public String system() {
        return system;
    }

    public Results header(String key, String value) {
        headers.put(clean(key), clean(value));
        return this;
    }

    public Results add(Scenario scenario, String variant, String metric, double value) {
        rows.add(new Row(system, scenario.id(), clean(variant), clean(metric), value));
        return this;
    }

    /** The header prefix under which {@link #notRun} records a skipped optional scenario. */
    public static final String NOT_RUN_PREFIX = "not-run ";

    /**
     * Declares that this harness does not run the optional {@code scenario}, and why; the report shows
     * "n/a" for this system there instead of "missing".
     *
     * @throws IllegalArgumentException if the scenario is not {@linkplain Scenario#optional() optional}
     */
    public Results notRun(Scenario scenario, String reason) {
        if (!scenario.optional()) {
            throw new IllegalArgumentException("Scenario " + scenario.id() + " is not optional: every harness must"
                    + " run it");
        }
        return header(NOT_RUN_PREFIX + scenario.id(), reason);
    }

    /** The reason a result file's headers give for not running {@code scenarioId}, or null if they give none. */
    public static @Nullable String notRunReason(Map<String, String> headers, String scenarioId) {
        return headers.get(NOT_RUN_PREFIX + scenarioId);
    }

    public List<Row> rows() {
        return List.copyOf(rows);
    }

    /** Writes the file atomically (temp file, then rename). */
    public void write(Path file) {
        StringBuilder sb = new StringBuilder();
        headers.forEach((k, v) -> sb.append("# ").append(k).append('\t').append(v).append('\n'));
        for (Row r : rows) {
            sb.append(r.system()).append('\t').append(r.scenario()).append('\t').append(r.variant()).append('\t')
                    .append(r.metric()).append('\t').append(format(r.value())).append('\n');
        }
        try {
            Path dir = file.toAbsolutePath().getParent();
            Files.createDirectories(dir);
            Path tmp = Files.createTempFile(dir, file.getFileName().toString(), ".tmp");
            Files.writeString(tmp, sb, StandardCharsets.UTF_8);
            Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot write results to " + file + ": " + e.getMessage(), e);
        }
    }

    public static Parsed read(Path file) {
        List<String> lines;
        try {
            lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot read results " + file + ": " + e.getMessage(), e);
        }
        Map<String, String> headers = new LinkedHashMap<>();
        List<Row> rows = new ArrayList<>();
        int n = 0;
        for (String line : lines) {
            n++;
            if (line.isBlank()) {
                continue;
            }
            if (line.startsWith("# ")) {
                String[] kv = line.substring(2).split("\t", 2);
                headers.put(kv[0], kv.length > 1 ? kv[1] : "");
                continue;
            }
            String[] f = line.split("\t");
            if (f.length != 5) {
                throw new IllegalArgumentException(file + ":" + n + ": expected 5 tab-separated fields, found "
                        + f.length + ": " + line);
            }
            rows.add(new Row(f[0], f[1], f[2], f[3], Double.parseDouble(f[4])));
        }
        return new Parsed(headers, rows);
    }

    private static String format(double v) {
        if (v == Math.rint(v) && Math.abs(v) < 1e15) {
            return Long.toString((long) v);
        }
        return String.format(Locale.ROOT, "%.4f", v);
    }

    private static String clean(String s) {
        return s.replace('\t', ' ').replace('\n', ' ');
    }
}
