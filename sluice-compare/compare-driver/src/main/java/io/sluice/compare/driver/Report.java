package io.sluice.compare.driver;

import io.sluice.compare.driver.Comparison.Key;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The comparison as markdown: how the run was made (machine, JVM and options, plan, date, command),
 * where Sluice is behind, then one table per scenario with each system's value and Sluice ÷ each
 * other system. A pure function of its inputs (no clock, no environment), so the same result files
 * give the same text.
 */
public final class Report {
    /**
     * What the report says about the run besides the result files.
     *
     * @param date      when the run finished, as it should appear
     * @param command   the command that was run
     * @param mode      "full" or "smoke"
     * @param chartLink link target of the chart (relative to the markdown file), or null for none
     * @param problems  failures of the run (a harness that failed, timed out, wrote no rows), one line each
     */
    public record RunInfo(String date, String command, String mode, String chartLink, List<String> problems) {
        public RunInfo {
            problems = List.copyOf(problems);
        }
    }

    /** A figure on which Sluice is behind at least one other system, and those systems. */
    public record Behind(Key key, Direction direction, double sluice, Map<String, Double> others) {
    }

    /** Headers that should be the same in every result file; the report warns if not. */
    private static final List<String> SAME_EVERYWHERE = List.of("jvm-options", "plan", "cores", "memory", "cpu",
            "jvm", "max-heap-mib", "os");

    private static final String REF = SystemUnderTest.REFERENCE;

    private final Comparison c;
    private final RunInfo run;

    public Report(Comparison comparison, RunInfo run) {
        this.c = comparison;
        this.run = run;
    }

    /** The report as a standalone file (with a title). */
    public String document() {
        return "# Sluice and Apache Flink side by side\n\n" + body();
    }

    /** The report without a title, for the section of docs/benchmarks.md (its headings are level 3 and 4). */
    public String body() {
        StringBuilder md = new StringBuilder();
        if ("smoke".equals(run.mode())) {
            md.append("> **Smoke run.** Each scenario ran for seconds on a tiny plan to check that every system"
                    + " produces every figure; the numbers below mean nothing.\n\n");
        }
        setup(md);
        problems(md);
        behindSection(md);
        if (run.chartLink() != null) {
            md.append("### Chart\n\n");
            md.append("Sluice ÷ each Flink version for the headline figures, log scale. Left of 1x Sluice's value is"
                    + " lower (better for times), right of 1x higher (better for throughput).\n\n");
            md.append("![Sluice ÷ Apache Flink, headline figures, log scale](").append(run.chartLink())
                    .append(")\n\n");
        }
        tables(md);
        return md.toString();
    }

    private void setup(StringBuilder md) {
        md.append("### How this was run\n\n");
        md.append("| | |\n| --- | --- |\n");
        row(md, "date", run.date());
        row(md, "command", code(run.command()));
        row(md, "plan", c.header("plan").map(Report::code).orElse("unknown (no result file)"));
        row(md, "machine", escape(machine()));
        row(md, "JVM", escape(c.header("jvm").orElse("unknown")));
        row(md, "JVM options (every system)", c.header("jvm-options").map(Report::code).orElse("unknown"));
        md.append('\n');

        md.append("| system | figures | started |\n| --- | ---: | --- |\n");
        for (String s : c.systems()) {
            md.append("| ").append(s).append(" | ")
                    .append(c.hasFile(s) ? Integer.toString(c.rowCount(s)) : "no result file").append(" | ")
                    .append(c.headers(s).getOrDefault("started", "—")).append(" |\n");
        }
        md.append('\n');
        configurations(md);

        for (String h : SAME_EVERYWHERE) {
            Optional<Map<String, String>> differs = c.headerDiffers(h);
            if (differs.isPresent()) {
                md.append("> **Warning:** header `").append(h).append("` differs between the systems, so they did"
                        + " not run under the same conditions:\n");
                differs.get().forEach((s, v) -> md.append(">\n> - ").append(s).append(": ").append(code(v))
                        .append('\n'));
                md.append('\n');
            }
        }
    }

    /** Headers every harness writes the same way; the others describe one system's set-up and are listed per system. */
    private static final java.util.Set<String> COMMON_HEADERS = java.util.Set.of("system", "cores", "memory", "cpu",
            "jvm", "max-heap-mib", "jvm-options", "os", "plan", "started", "finished");

    /** Each system's own set-up, as its harness recorded it (version, cluster, configuration, notes). */
    private void configurations(StringBuilder md) {
        md.append("Set-up and configuration of each system, as its harness recorded them:\n\n");
        for (String s : c.systems()) {
            if (!c.hasFile(s)) {
                continue;
            }
            md.append("- **").append(s).append("**");
            c.headers(s).forEach((k, v) -> {
                if (!COMMON_HEADERS.contains(k)) {
                    md.append("\n  - `").append(k).append("`: ").append(escape(v));
                }
            });
            md.append('\n');
        }
        md.append('\n');
    }

    private String machine() {
        List<String> parts = new ArrayList<>();
        c.header("cores").ifPresent(v -> parts.add(v + " cores"));
        c.header("memory").ifPresent(v -> parts.add(memory(v) + " memory"));
        c.header("cpu").ifPresent(parts::add);
        c.header("os").ifPresent(parts::add);
        return parts.isEmpty() ? "unknown (no result file)" : String.join(", ", parts);
    }

    /** "24607732 kB" (MemTotal) as "23.5 GiB"; anything else as is. */
    static String memory(String memTotal) {
        Matcher m = Pattern.compile("(\\d+)\\s*kB").matcher(memTotal.strip());
        if (m.matches()) {
            return String.format(Locale.ROOT, "%.1f GiB", Long.parseLong(m.group(1)) / (1024.0 * 1024.0));
        }
        return memTotal;
    }

    private void problems(StringBuilder md) {
        List<String> lines = new ArrayList<>(run.problems());
        for (String w : c.warnings()) {
            lines.add(w);
        }
        List<String> missing = missingFigures();
        if (lines.isEmpty() && missing.isEmpty()) {
            return;
        }
        md.append("### Problems in this run\n\n");
        for (String p : lines) {
            md.append("- ").append(escape(p)).append('\n');
        }
        if (!missing.isEmpty()) {
            md.append("- figures some systems did not report (shown as \"missing\" in the tables):\n");
            for (String m : missing) {
                md.append("  - ").append(escape(m)).append('\n');
            }
        }
        md.append('\n');
    }

    /** "Task failover, N=1, D=0 ms, to_running_ms: flink-1.13.6" for every figure a system with a file lacks. */
    private List<String> missingFigures() {
        List<String> out = new ArrayList<>();
        for (Key k : c.keys()) {
            List<String> lacking = c.systems().stream().filter(c::hasFile).filter(s -> c.value(k, s) == null)
                    .filter(s -> !c.notRun(k, s)).toList();
            if (!lacking.isEmpty()) {
                out.add(Comparison.describe(k) + ": " + String.join(", ", lacking));
            }
        }
        return out;
    }

    /** Every figure on which Sluice is behind some other system by more than 10%, in report order. */
    public List<Behind> behind() {
        List<Behind> out = new ArrayList<>();
        for (Key k : c.keys()) {
            Direction d = Direction.of(k.metric());
            Double s = c.value(k, REF);
            if (s == null || d == Direction.NEUTRAL) {
                continue;
            }
            Map<String, Double> trailing = new java.util.LinkedHashMap<>();
            for (String o : c.others()) {
                Double f = c.value(k, o);
                if (f != null && d.behind(s, f)) {
                    trailing.put(o, f);
                }
            }
            if (!trailing.isEmpty()) {
                out.add(new Behind(k, d, s, java.util.Collections.unmodifiableMap(trailing)));
            }
        }
        return out;
    }

    private void behindSection(StringBuilder md) {
        md.append("### Where Sluice is behind\n\n");
        if (!c.hasFile(REF)) {
            md.append("Cannot say: there are no Sluice results in this run.\n\n");
            return;
        }
        if (c.others().stream().noneMatch(c::hasFile)) {
            md.append("Cannot say: there are no Flink results in this run.\n\n");
            return;
        }
        List<Behind> behind = behind();
        md.append("Every figure on which Sluice is more than 10% worse than at least one Flink version"
                + " (lower is better: Sluice > 1.1 × Flink; higher is better: Sluice < 0.9 × Flink; \"n/a\", no"
                + " figure, counts as worst). Figures with no better direction (counts of checkpoints, runs,"
                + " queries) are not compared.\n\n");
        if (behind.isEmpty()) {
            md.append("**None.** On every compared figure Sluice is better than, or within 10% of, every Flink"
                    + " version in this run.\n\n");
            return;
        }
        md.append("**Sluice is behind on ").append(behind.size()).append(behind.size() == 1 ? " figure" : " figures")
                .append(":**\n\n");
        for (Behind b : behind) {
            md.append("- ").append(escape(Comparison.title(b.key().scenario()))).append(", ")
                    .append(escape(b.key().variant())).append(", `").append(b.key().metric()).append("` (")
                    .append(b.direction().label()).append(" is better): Sluice ").append(Format.value(b.sluice()))
                    .append(" vs ");
            List<String> parts = new ArrayList<>();
            b.others().forEach((o, f) -> parts.add(o + " " + Format.value(f) + " ("
                    + Format.ratio(b.sluice(), f) + ")"));
            md.append(String.join(", ", parts)).append('\n');
        }
        md.append('\n');
    }

    private void tables(StringBuilder md) {
        md.append("### Results by scenario\n\n");
        md.append("Values as each harness reported them (units in the metric name; \"n/a\": the harness had no"
                + " figure, e.g. a latency percentile where no status query was recorded, or it declared an optional"
                + " scenario not run (its reason is in its set-up above); \"missing\": not reported). Ratios are Sluice ÷ that system; \"—\" where that system's value is 0. **Bold**"
                + " ratios mark where Sluice is behind by more than 10%.\n\n");
        if (c.scenarios().isEmpty()) {
            md.append("No result rows.\n\n");
            return;
        }
        List<String> others = c.others();
        boolean hasRef = c.systems().contains(REF);
        for (String scenario : c.scenarios()) {
            md.append("#### ").append(escape(Comparison.title(scenario))).append(" (`").append(scenario)
                    .append("`)\n\n");
            StringBuilder head = new StringBuilder("| variant | metric | better |");
            StringBuilder rule = new StringBuilder("| --- | --- | --- |");
            if (hasRef) {
                head.append(' ').append(REF).append(" |");
                rule.append(" ---: |");
            }
            for (String o : others) {
                head.append(' ').append(o).append(" |");
                rule.append(" ---: |");
                if (hasRef) {
                    head.append(' ').append(REF).append(" ÷ ").append(o).append(" |");
                    rule.append(" ---: |");
                }
            }
            md.append(head).append('\n').append(rule).append('\n');
            for (Key k : c.keys(scenario)) {
                Direction d = Direction.of(k.metric());
                Double s = c.value(k, REF);
                md.append("| ").append(escape(k.variant())).append(" | ").append(k.metric()).append(" | ")
                        .append(d.label()).append(" |");
                if (hasRef) {
                    md.append(' ').append(cell(k, REF)).append(" |");
                }
                for (String o : others) {
                    Double f = c.value(k, o);
                    md.append(' ').append(cell(k, o)).append(" |");
                    if (hasRef) {
                        String r = c.notRun(k, o) || c.notRun(k, REF) ? Format.NOT_AVAILABLE : Format.ratio(s, f);
                        boolean behind = s != null && f != null && d.behind(s, f);
                        md.append(' ').append(behind ? "**" + r + "**" : r).append(" |");
                    }
                }
                md.append('\n');
            }
            md.append('\n');
        }
    }

    /** {@code system}'s value of {@code key}; "n/a" if it declared the (optional) scenario not run. */
    private String cell(Key key, String system) {
        return c.notRun(key, system) ? Format.NOT_AVAILABLE : Format.value(c.value(key, system));
    }

    private static void row(StringBuilder md, String name, String value) {
        md.append("| ").append(name).append(" | ").append(value).append(" |\n");
    }

    /** Inline code, safe in a table cell. */
    private static String code(String s) {
        return "`" + s.replace("`", "'").replace("|", "\\|") + "`";
    }

    /** Text safe in a table cell or list item. */
    private static String escape(String s) {
        return s.replace("|", "\\|").replace("<", "&lt;").replace(">", "&gt;");
    }
}
