package io.sluice.compare.driver;

import io.sluice.compare.Plan;
import io.sluice.compare.Scenario;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The driver's command line, parsed and checked.
 *
 * @param mode        "full" or "smoke"
 * @param systems     the systems to run, in {@link SystemUnderTest#ALL} order
 * @param root        the repository root (contains sluice-compare/)
 * @param outDir      where the result files, the report and the chart go
 * @param writeDocs   whether to rewrite the comparison section of docs/benchmarks.md and docs/img/comparison.svg
 * @param only        the scenarios to run (empty: all), passed to each harness as {@code --only}
 * @param timeout     per-system time limit
 * @param help        {@code --help} was given: print {@link #USAGE} and do nothing else
 * @param reportOnly  run no harness: re-render the report and chart (and, with {@code --write-docs}, the docs)
 *                    from the result files already in the output directory
 * @param parallel    harnesses run at the same time (1: one after the other); above 1 only in smoke mode,
 *                    whose figures mean nothing, so that CI's smoke comparison takes less wall time
 * @param stateGb     {@code --state-gb}: the logical state size of the large-state scenario, passed to each
 *                    harness; null for the plan's default (4 GB full, 0.005 GB smoke)
 * @param steadyRate  {@code --steady-rate}: the records/s of the large-state scenario's steady phase, passed to each
 *                    harness; null for the plan's 1 % of the keys per second
 * @param taskFailovers {@code --task-failovers}: task failovers of the large-state scenario, passed to each
 *                    harness; null for the plan's (one above 1.5 GB)
 * @param rounds      {@code --rounds}: how many times every system runs, the order rotated each round; above 1
 *                    the report compares each figure's median over the rounds ({@link Rounds})
 */
public record DriverArgs(String mode, List<SystemUnderTest> systems, Path root, Path outDir, boolean writeDocs,
                         Set<Scenario> only, Duration timeout, boolean help, boolean reportOnly, int parallel,
                         @Nullable String stateGb, @Nullable String steadyRate, @Nullable String taskFailovers,
                         int rounds) {

    public static final Duration FULL_TIMEOUT = Duration.ofMinutes(60);
    public static final Duration SMOKE_TIMEOUT = Duration.ofMinutes(10);

    public static final String USAGE = """
            Usage: CompareMain [--mode full|smoke] [--systems sluice,flink-1.13.6,flink-1.14.6,flink-1.20.5,flink-2.3.0]
                               [--root <repository root>] [--out-dir <dir>] [--only <scenario,...>]
                               [--timeout <90s|10m|1h>] [--write-docs] [--report-only] [--parallel <n>]
                               [--state-gb <GB>] [--steady-rate <records/s>] [--task-failovers <n>] [--rounds <n>]
              --mode        full (the documented figures; default) or smoke (seconds per scenario; numbers mean nothing)
              --systems     systems to run, comma-separated (default: all five)
              --root        repository root (default: the nearest directory above the current one with sluice-compare/)
              --out-dir     result files, report and chart (default: <root>/sluice-compare/compare-driver/target/compare)
              --only        scenarios to run, passed to every harness: %s
              --timeout     per-system limit; the harness is stopped after it (default: 60m full, 10m smoke)
              --write-docs  also rewrite the comparison section of docs/benchmarks.md and docs/img/comparison.svg
                            (full mode, all systems, all scenarios only)
              --report-only run no harness; re-render the report and chart (and the docs, with --write-docs) from
                            the result files already in --out-dir, e.g. after changing how the report is written
              --parallel    smoke mode only: run up to n harnesses at the same time (default 1, one after the
                            other; full mode always runs them one at a time, on an otherwise idle machine)
              --state-gb    logical state of the large-state scenario (run only when --only names it), in GB
                            (default 4 in full mode, 0.005 in smoke mode)
              --steady-rate records/s of the large-state scenario's steady phase, over all subtasks (default 1 %% of
                            its keys per second, which no system reaches on a small machine; a rate every system
                            sustains compares their uploads and checkpoint durations for the same change)
              --task-failovers task failovers of the large-state scenario (default 1 above 1.5 GB, else 2); each
                            task-failover figure is the median over them
              --rounds      run every system n times (default 1), one after the other, the systems' order
                            rotated each round; the report compares the median of each figure over the rounds,
                            rounds.md lists every round's figure, round-<k>/ holds each round's result files
            """.formatted(String.join(",", Arrays.stream(Scenario.values()).map(Scenario::id).toList()));

    public DriverArgs {
        systems = List.copyOf(systems);
        only = only.isEmpty() ? Set.of() : Set.copyOf(EnumSet.copyOf(only));
        if (parallel < 1) {
            throw new IllegalArgumentException("--parallel must be at least 1, not " + parallel);
        }
        if (rounds < 1) {
            throw new IllegalArgumentException("--rounds must be at least 1, not " + rounds);
        }
    }

    public boolean smoke() {
        return mode.equals("smoke");
    }

    /**
     * The options passed to every harness after {@code --mode} and {@code --out}: {@code --only}, {@code --state-gb},
     * {@code --steady-rate}, {@code --task-failovers}.
     */
    public List<String> harnessOptions() {
        List<String> o = new java.util.ArrayList<>();
        onlyArgument().ifPresent(v -> {
            o.add("--only");
            o.add(v);
        });
        if (stateGb != null) {
            o.add("--state-gb");
            o.add(stateGb);
        }
        if (steadyRate != null) {
            o.add("--steady-rate");
            o.add(steadyRate);
        }
        if (taskFailovers != null) {
            o.add("--task-failovers");
            o.add(taskFailovers);
        }
        return List.copyOf(o);
    }

    /** The {@code --only} value to pass on (scenario ids in declaration order), if scenarios were restricted. */
    public Optional<String> onlyArgument() {
        if (only.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(String.join(",", EnumSet.copyOf(only).stream().map(Scenario::id).toList()));
    }

    /** Parses with the systems of {@link SystemUnderTest#ALL}, finding the root from the current directory. */
    public static DriverArgs parse(String[] args) {
        return parse(args, SystemUnderTest.ALL, Path.of("").toAbsolutePath());
    }

    /**
     * Parses {@code args}.
     *
     * @param known the systems {@code --systems} may name (and the default)
     * @param cwd   where the search for the repository root starts when {@code --root} is not given
     * @throws IllegalArgumentException with what is wrong and what to do, for any bad argument
     */
    public static DriverArgs parse(String[] args, List<SystemUnderTest> known, Path cwd) {
        String mode = "full";
        String systemsArg = null;
        Path root = null;
        Path outDir = null;
        boolean writeDocs = false;
        String onlyArg = null;
        Duration timeout = null;
        boolean help = false;
        boolean reportOnly = false;
        int parallel = 1;
        String stateGb = null;
        String steadyRate = null;
        String taskFailovers = null;
        int rounds = 1;
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            switch (a) {
                case "--mode" -> {
                    mode = value(args, ++i, a);
                    Plan.of(mode); // rejects anything but full|smoke, with the reason
                }
                case "--systems" -> systemsArg = value(args, ++i, a);
                case "--root" -> root = Path.of(value(args, ++i, a));
                case "--out-dir" -> outDir = Path.of(value(args, ++i, a));
                case "--only" -> onlyArg = value(args, ++i, a);
                case "--timeout" -> timeout = parseDuration(value(args, ++i, a));
                case "--write-docs" -> writeDocs = true;
                case "--help", "-h" -> help = true;
                case "--report-only" -> reportOnly = true;
                case "--parallel" -> parallel = parseParallel(value(args, ++i, a));
                case "--rounds" -> rounds = parseRounds(value(args, ++i, a));
                case "--state-gb" -> {
                    stateGb = value(args, ++i, a);
                    io.sluice.compare.LargeStatePlan.parseGb(stateGb); // rejects what the harnesses would, with the reason
                }
                case "--steady-rate" -> {
                    steadyRate = value(args, ++i, a);
                    io.sluice.compare.LargeStatePlan.parseSteadyRate(steadyRate);
                }
                case "--task-failovers" -> {
                    taskFailovers = value(args, ++i, a);
                    io.sluice.compare.LargeStatePlan.parseFailovers(taskFailovers);
                }
                default -> throw new IllegalArgumentException("Unknown option '" + a + "'. " + "See --help.");
            }
        }
        if (help) {
            return new DriverArgs(mode, known, cwd, cwd, false, Set.of(), FULL_TIMEOUT, true, false, 1, null, null, null, 1);
        }
        List<SystemUnderTest> systems = systemsArg == null ? known : parseSystems(systemsArg, known);
        Set<Scenario> only = onlyArg == null ? Set.of() : parseScenarios(onlyArg);
        if (root == null) {
            root = findRoot(cwd);
        } else if (!Files.isDirectory(root.resolve("sluice-compare"))) {
            throw new IllegalArgumentException("--root " + root + " has no sluice-compare/ directory;"
                    + " pass the repository root.");
        }
        root = root.toAbsolutePath().normalize();
        outDir = (outDir == null ? root.resolve("sluice-compare/compare-driver/target/compare") : outDir)
                .toAbsolutePath().normalize();
        if (timeout == null) {
            timeout = mode.equals("smoke") ? SMOKE_TIMEOUT : FULL_TIMEOUT;
        }
        if (parallel > 1 && !mode.equals("smoke")) {
            throw new IllegalArgumentException("--parallel " + parallel + " is refused with --mode " + mode
                    + ": the full comparison's figures are only comparable when each system runs alone on the"
                    + " machine. Drop --parallel, or use --mode smoke.");
        }
        if (rounds > 1 && parallel > 1) {
            throw new IllegalArgumentException("--rounds " + rounds + " is refused with --parallel " + parallel
                    + ": rounds exist to compare systems that each ran alone. Drop one of them.");
        }
        if (rounds > 1 && reportOnly) {
            throw new IllegalArgumentException("--rounds is refused with --report-only, which runs no harness;"
                    + " the medians of a run with rounds are already in its output directory.");
        }
        if (rounds > 1 && writeDocs) {
            throw new IllegalArgumentException("--rounds is refused with --write-docs: the comparison section of"
                    + " docs/benchmarks.md shows one run per system. Drop --write-docs and read the report (medians)"
                    + " and rounds.md in the output directory.");
        }
        if (writeDocs && taskFailovers != null) {
            throw new IllegalArgumentException("--task-failovers is refused with --write-docs: the comparison section"
                    + " of docs/benchmarks.md runs the large-state scenario with its plan's failovers. Drop"
                    + " --write-docs and read the report in the output directory.");
        }
        if (writeDocs && steadyRate != null) {
            throw new IllegalArgumentException("--steady-rate is refused with --write-docs: the comparison section of"
                    + " docs/benchmarks.md runs the large-state scenario at its plan's rate. Drop --write-docs and read"
                    + " the report in the output directory.");
        }
        if (writeDocs) {
            if (mode.equals("smoke")) {
                throw new IllegalArgumentException("--write-docs is refused with --mode smoke: smoke figures mean"
                        + " nothing and must never reach docs/. Use --mode full, or drop --write-docs (the report"
                        + " is written to the output directory either way).");
            }
            if (!only.isEmpty() || systems.size() != known.size()) {
                throw new IllegalArgumentException("--write-docs rewrites the whole comparison in"
                        + " docs/benchmarks.md, so it needs every system and every scenario: drop --only and"
                        + " --systems, or drop --write-docs and read the report in the output directory.");
            }
        }
        return new DriverArgs(mode, systems, root, outDir, writeDocs, only, timeout, help, reportOnly, parallel,
                stateGb, steadyRate, taskFailovers, rounds);
    }

    /** The nearest directory at or above {@code cwd} that contains sluice-compare/. */
    public static Path findRoot(Path cwd) {
        for (Path d = cwd.toAbsolutePath().normalize(); d != null; d = d.getParent()) {
            if (Files.isDirectory(d.resolve("sluice-compare"))) {
                return d;
            }
        }
        throw new IllegalArgumentException("Cannot find the repository root (a directory with sluice-compare/)"
                + " at or above " + cwd + ": run from inside the repository or pass --root <dir>.");
    }

    private static List<SystemUnderTest> parseSystems(String arg, List<SystemUnderTest> known) {
        Set<String> names = new LinkedHashSet<>();
        for (String n : arg.split(",")) {
            String name = n.strip();
            if (name.isEmpty()) {
                continue;
            }
            if (known.stream().noneMatch(s -> s.name().equals(name))) {
                throw new IllegalArgumentException("Unknown system '" + name + "' in --systems; known: "
                        + String.join(",", known.stream().map(SystemUnderTest::name).toList()));
            }
            if (!names.add(name)) {
                throw new IllegalArgumentException("System '" + name + "' is named twice in --systems");
            }
        }
        if (names.isEmpty()) {
            throw new IllegalArgumentException("--systems names no system; known: "
                    + String.join(",", known.stream().map(SystemUnderTest::name).toList()));
        }
        List<SystemUnderTest> chosen = new ArrayList<>();
        for (SystemUnderTest s : known) {
            if (names.contains(s.name())) {
                chosen.add(s);
            }
        }
        return chosen;
    }

    private static Set<Scenario> parseScenarios(String arg) {
        Set<Scenario> only = EnumSet.noneOf(Scenario.class);
        for (String id : arg.split(",")) {
            if (id.isBlank()) {
                continue;
            }
            only.add(Scenario.byId(id.strip()).orElseThrow(() -> new IllegalArgumentException(
                    "Unknown scenario '" + id.strip() + "' in --only; known: "
                            + String.join(",", Arrays.stream(Scenario.values()).map(Scenario::id).toList()))));
        }
        if (only.isEmpty()) {
            throw new IllegalArgumentException("--only names no scenario");
        }
        return only;
    }

    private static int parseParallel(String s) {
        return parseAtLeastOne("--parallel", s, "a number of harnesses (1, 2, ...)");
    }

    private static int parseRounds(String s) {
        return parseAtLeastOne("--rounds", s, "a number of rounds (1, 3, 5, ...)");
    }

    /** {@code s} as a whole number of at least 1, for {@code option}, which takes {@code what}. */
    private static int parseAtLeastOne(String option, String s, String what) {
        int n;
        try {
            n = Integer.parseInt(s.strip());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(option + " takes " + what + ", not '" + s + "'");
        }
        if (n < 1) {
            throw new IllegalArgumentException(option + " must be at least 1, not '" + s + "'");
        }
        return n;
    }

    /** "90s", "10m", "1h" or a number of minutes. */
    static Duration parseDuration(String s) {
        String t = s.strip().toLowerCase(Locale.ROOT);
        try {
            Duration d;
            if (t.endsWith("ms")) {
                d = Duration.ofMillis(Long.parseLong(t.substring(0, t.length() - 2)));
            } else if (t.endsWith("s")) {
                d = Duration.ofSeconds(Long.parseLong(t.substring(0, t.length() - 1)));
            } else if (t.endsWith("m")) {
                d = Duration.ofMinutes(Long.parseLong(t.substring(0, t.length() - 1)));
            } else if (t.endsWith("h")) {
                d = Duration.ofHours(Long.parseLong(t.substring(0, t.length() - 1)));
            } else {
                d = Duration.ofMinutes(Long.parseLong(t));
            }
            if (d.isNegative() || d.isZero()) {
                throw new IllegalArgumentException("--timeout must be positive, not '" + s + "'");
            }
            return d;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("--timeout takes a duration like 90s, 10m or 1h, not '" + s + "'");
        }
    }

    private static String value(String[] args, int i, String option) {
        if (i >= args.length) {
            throw new IllegalArgumentException(option + " needs a value. See --help.");
        }
        return args[i];
    }
}
