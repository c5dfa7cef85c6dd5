package io.sluice.compare.driver;

import io.sluice.compare.Results;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.jspecify.annotations.Nullable;

/**
 * Runs the comparison: each system's harness in its own JVM, one after the other, with the same
 * JVM options ({@link JvmOptions}); then merges their result files into a report and a chart in the
 * output directory and, with {@code --write-docs}, into docs/benchmarks.md and docs/img/comparison.svg.
 * A system that fails or times out does not stop the others; it is reported at the end and makes the
 * exit code 1. See {@link DriverArgs#USAGE} for the options.
 *
 * <p>Threads: everything runs on the calling thread, except that with {@code --parallel n} (smoke mode
 * only) the harness runs block n pool threads of {@code execute} while the calling thread waits for
 * them (see {@link HarnessRunner} for the threads that copy a harness's output).
 */
public final class CompareMain {
    /** Name of the report in the output directory. */
    public static final String REPORT_FILE = "comparison.md";
    /** Name of the chart in the output directory. */
    public static final String CHART_FILE = "comparison.svg";
    /** Name of the table of every round's figures in the output directory ({@code --rounds} above 1). */
    public static final String ROUNDS_FILE = "rounds.md";
    /** System property through which a launcher script says how it was invoked (shown as the command). */
    public static final String COMMAND_PROPERTY = "compare.command";

    /**
     * What a run did.
     *
     * @param exitCode   0 if every system produced figures (and docs were written if asked), 1 otherwise
     * @param outcomes   each system's run, in run order
     * @param comparison the merged result files
     * @param report     the report file in the output directory, or null if the run stopped before it
     */
    public record RunResult(int exitCode, List<HarnessRunner.Outcome> outcomes, Comparison comparison, Path report) {
    }

    private final DriverArgs args;
    private final String command;
    private final PrintStream log;
    private final Duration heartbeat;

    public CompareMain(DriverArgs args, String command, PrintStream log, Duration heartbeat) {
        this.args = args;
        this.command = command;
        this.log = log;
        this.heartbeat = heartbeat;
    }

    public static void main(String[] argv) {
        System.exit(run(argv, SystemUnderTest.ALL, Path.of("").toAbsolutePath(), System.out));
    }

    /** Parses {@code argv} and runs; returns the exit code (2 for a bad command line). */
    public static int run(String[] argv, List<SystemUnderTest> known, Path cwd, PrintStream log) {
        DriverArgs args;
        try {
            args = DriverArgs.parse(argv, known, cwd);
        } catch (IllegalArgumentException e) {
            log.println("compare: " + e.getMessage());
            log.println(DriverArgs.USAGE);
            return 2;
        }
        if (args.help()) {
            log.println(DriverArgs.USAGE);
            return 0;
        }
        String command = System.getProperty(COMMAND_PROPERTY);
        if (command == null || command.isBlank()) {
            command = "java -cp … " + CompareMain.class.getName() + (argv.length == 0 ? "" : " "
                    + String.join(" ", argv));
        }
        return new CompareMain(args, command, log, Duration.ofSeconds(30)).execute().exitCode();
    }

    /** Runs every system, writes the report, chart and (if asked) docs. */
    public RunResult execute() {
        if (args.reportOnly()) {
            return reportOnly();
        }
        List<SystemUnderTest> systems = args.systems();
        log.println("[compare] mode " + args.mode() + ", systems " + String.join(", ",
                systems.stream().map(SystemUnderTest::name).toList()) + args.onlyArgument().map(o -> ", scenarios "
                + o).orElse("") + ", time limit per system " + HarnessRunner.duration(args.timeout()));
        log.println("[compare] repository " + args.root() + ", output " + args.outDir());

        List<String> jvmOptions;
        try {
            Files.createDirectories(args.outDir());
            List<String> hostNames = JvmOptions.localHostNames();
            Path hosts = JvmOptions.writeHostsFile(args.outDir(), hostNames);
            jvmOptions = args.smoke() ? JvmOptions.forSmoke(hosts) : JvmOptions.forHarness(hosts);
            Files.write(args.outDir().resolve("jvm-options.txt"), jvmOptions, StandardCharsets.UTF_8);
            log.println("[compare] JVM options of every harness: " + String.join(" ", jvmOptions));
            log.println("[compare] " + hosts + ": " + String.join("; ", JvmOptions.hostsLines(hostNames)));
            Optional<String> resolveProblem = HostsCheck.verify(HarnessRunner.currentJava(), jvmOptions,
                    JvmOptions.hostsLines(hostNames).stream().map(l -> l.substring(l.indexOf(' ') + 1)).toList());
            if (resolveProblem.isPresent()) {
                log.println("[compare] FAILED before any harness ran: " + resolveProblem.get());
                return new RunResult(1, List.of(), Comparison.of(List.of(), Map.of()), null);
            }
        } catch (IOException | UncheckedIOException e) {
            log.println("[compare] FAILED: cannot prepare the output directory " + args.outDir() + ": "
                    + e.getMessage());
            return new RunResult(1, List.of(), Comparison.of(List.of(), Map.of()), null);
        }

        long start = System.nanoTime();
        List<HarnessRunner.Outcome> outcomes;
        Comparison comparison;
        if (args.rounds() == 1) {
            HarnessRunner runner = new HarnessRunner(HarnessRunner.currentJava(), jvmOptions, args.outDir(),
                    heartbeat, log);
            outcomes = runAll(runner, systems, start);
            comparison = merge(systems, runner, outcomes);
        } else {
            RoundsRun rounds = runRounds(jvmOptions, systems, start);
            outcomes = rounds.outcomes();
            comparison = rounds.comparison();
        }
        List<String> problems = outcomes.stream().filter(o -> !o.ok()).map(HarnessRunner.Outcome::describe)
                .toList();
        String date = ZonedDateTime.now(ZoneOffset.UTC).format(DATE);
        boolean docsFailed = !publish(comparison, problems, date, command);

        log.println("[compare] summary (" + HarnessRunner.duration(Duration.ofNanos(System.nanoTime() - start))
                + "):");
        outcomes.forEach(o -> log.println("[compare]   " + (o.ok() ? "ok     " : "FAILED ") + o.describe()));
        boolean failed = !problems.isEmpty() || docsFailed;
        if (failed) {
            log.println("[compare] FAILED: " + (problems.isEmpty() ? "see above" : problems.size() + " of "
                    + systems.size() + " systems did not produce their figures") + ".");
        }
        return new RunResult(failed ? 1 : 0, List.copyOf(outcomes), comparison, args.outDir().resolve(REPORT_FILE));
    }

    /**
     * Runs every system's harness, one after the other, or (smoke mode, {@code --parallel n}) up to n at
     * a time on n threads of this call, each run blocking its thread; returns the outcomes in
     * {@code systems} order.
     */
    private List<HarnessRunner.Outcome> runAll(HarnessRunner runner, List<SystemUnderTest> systems, long start) {
        List<Callable<HarnessRunner.Outcome>> runs = new ArrayList<>();
        for (int i = 0; i < systems.size(); i++) {
            SystemUnderTest s = systems.get(i);
            String label = s.name() + " (" + (i + 1) + "/" + systems.size() + ")";
            runs.add(() -> {
                HarnessRunner.Outcome o = runner.run(s, args.root(), args.mode(), args.harnessOptions(),
                        args.timeout(), label);
                log.println("[compare] " + HarnessRunner.duration(Duration.ofNanos(System.nanoTime() - start))
                        + " elapsed in all");
                return o;
            });
        }
        if (args.parallel() <= 1) {
            List<HarnessRunner.Outcome> outcomes = new ArrayList<>();
            for (Callable<HarnessRunner.Outcome> run : runs) {
                outcomes.add(call(run));
            }
            return outcomes;
        }
        log.println("[compare] running up to " + args.parallel() + " harnesses at the same time (smoke mode)");
        ExecutorService pool = Executors.newFixedThreadPool(Math.min(args.parallel(), runs.size()), r -> {
            Thread t = new Thread(r, "compare-run");
            t.setDaemon(true);
            return t;
        });
        try {
            List<HarnessRunner.Outcome> outcomes = new ArrayList<>();
            for (Future<HarnessRunner.Outcome> f : pool.invokeAll(runs)) {
                outcomes.add(f.get());
            }
            return outcomes;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while the harnesses ran; they are stopped", e);
        } catch (ExecutionException e) {
            throw new IllegalStateException("a harness run failed in the driver itself: " + e.getCause(), e.getCause());
        } finally {
            pool.shutdownNow();
        }
    }

    /** The outcomes of every round's runs, and the comparison of each system's medians. */
    private record RoundsRun(List<HarnessRunner.Outcome> outcomes, Comparison comparison) {
    }

    /**
     * {@code --rounds n}: every system n times, one after the other, the order rotated each round
     * ({@link Rounds#order}); each round's result files in {@code round-<k>/}; each system's figures
     * the medians over its rounds ({@code <system>.tsv} in the output directory), compared as one run's
     * would be; every round's figures in {@code rounds.md}. A system that failed in any round has no
     * median file (its failure is in the outcomes).
     */
    private RoundsRun runRounds(List<String> jvmOptions, List<SystemUnderTest> systems, long start) {
        int n = args.rounds();
        List<HarnessRunner.Outcome> outcomes = new ArrayList<>();
        Map<String, List<Results.Parsed>> perSystem = new LinkedHashMap<>();
        systems.forEach(s -> perSystem.put(s.name(), new ArrayList<>()));
        for (int k = 1; k <= n; k++) {
            List<SystemUnderTest> order = Rounds.order(systems, k);
            Path dir = args.outDir().resolve("round-" + k);
            log.println("[compare] round " + k + "/" + n + ": " + String.join(", ",
                    order.stream().map(SystemUnderTest::name).toList()) + "; result files in " + dir);
            HarnessRunner runner = new HarnessRunner(HarnessRunner.currentJava(), jvmOptions, dir, heartbeat, log);
            for (int i = 0; i < order.size(); i++) {
                SystemUnderTest s = order.get(i);
                HarnessRunner.Outcome o = runner.run(s, args.root(), args.mode(), args.harnessOptions(),
                        args.timeout(), s.name() + " (round " + k + "/" + n + ", " + (i + 1) + "/" + order.size()
                                + ")");
                outcomes.add(o);
                log.println("[compare] " + HarnessRunner.duration(Duration.ofNanos(System.nanoTime() - start))
                        + " elapsed in all");
                perSystem.get(s.name()).add(o.ok() ? readQuietly(runner.resultFile(s)) : null);
            }
        }
        Map<String, Results.Parsed> medians = new LinkedHashMap<>();
        for (SystemUnderTest s : systems) {
            List<Results.Parsed> files = perSystem.get(s.name());
            if (files.stream().anyMatch(java.util.Objects::isNull)) {
                continue;
            }
            Path f = args.outDir().resolve(s.name() + ".tsv");
            Rounds.medianOf(s.name(), files).write(f);
            medians.put(s.name(), Results.read(f));
        }
        Path table = args.outDir().resolve(ROUNDS_FILE);
        try {
            Files.writeString(table, Rounds.table(systems.stream().map(SystemUnderTest::name).toList(), perSystem,
                    n), StandardCharsets.UTF_8);
            log.println("[compare] every round's figures: " + table);
        } catch (IOException e) {
            log.println("[compare] cannot write " + table + ": " + e.getMessage());
        }
        return new RoundsRun(List.copyOf(outcomes),
                Comparison.of(systems.stream().map(SystemUnderTest::name).toList(), medians));
    }

    private Results.@Nullable Parsed readQuietly(Path f) {
        try {
            return Results.read(f);
        } catch (RuntimeException e) {
            log.println("[compare] " + f + ": result file left out of the medians: " + e.getMessage());
            return null;
        }
    }

    private static HarnessRunner.Outcome call(Callable<HarnessRunner.Outcome> run) {
        try {
            return run.call();
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static final DateTimeFormatter DATE = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm 'UTC'");

    /**
     * {@code --report-only}: reads the result files already in the output directory (a system without
     * one is a problem, as in a run) and writes the report, chart and, if asked, docs from them. The
     * date shown is when the newest result file was written, i.e. when that run finished.
     */
    private RunResult reportOnly() {
        Map<String, Results.Parsed> files = new LinkedHashMap<>();
        List<String> problems = new ArrayList<>();
        java.time.Instant newest = null;
        for (SystemUnderTest s : args.systems()) {
            Path f = args.outDir().resolve(s.name() + ".tsv");
            try {
                files.put(s.name(), Results.read(f));
                java.time.Instant written = Files.getLastModifiedTime(f).toInstant();
                newest = newest == null || written.isAfter(newest) ? written : newest;
            } catch (IOException | RuntimeException e) {
                problems.add(s.name() + ": no readable result file " + f + " (" + e.getMessage() + "); run the"
                        + " comparison first");
            }
        }
        Comparison comparison = Comparison.of(args.systems().stream().map(SystemUnderTest::name).toList(), files);
        String date = newest == null ? "unknown" : newest.atZone(ZoneOffset.UTC).format(DATE);
        log.println("[compare] --report-only: " + files.size() + " result files from " + args.outDir()
                + (problems.isEmpty() ? "" : "; problems: " + String.join("; ", problems)));
        boolean ok = publish(comparison, problems, date, "sluice-compare/run-comparison (report re-rendered from"
                + " its result files with --report-only)");
        return new RunResult(ok && problems.isEmpty() ? 0 : 1, List.of(), comparison,
                args.outDir().resolve(REPORT_FILE));
    }

    /** Writes the report and chart to the output directory and, if asked and nothing failed, the docs; false on failure. */
    private boolean publish(Comparison comparison, List<String> problems, String date, String command) {
        String svg = Chart.svg(comparison);
        Path reportFile = args.outDir().resolve(REPORT_FILE);
        boolean docsFailed = false;
        try {
            Report report = new Report(comparison, new Report.RunInfo(date, command, args.mode(), CHART_FILE,
                    problems));
            Files.writeString(reportFile, report.document(), StandardCharsets.UTF_8);
            Files.writeString(args.outDir().resolve(CHART_FILE), svg, StandardCharsets.UTF_8);
            log.println("[compare] report: " + reportFile + ", chart: " + args.outDir().resolve(CHART_FILE));
        } catch (IOException e) {
            log.println("[compare] cannot write the report to " + args.outDir() + ": " + e.getMessage());
            docsFailed = true;
        }
        if (args.writeDocs()) {
            if (!problems.isEmpty()) {
                log.println("[compare] " + DocsSection.DOC + " NOT updated: not every system produced its figures"
                        + " (below). Fix that and rerun; this run's report is in " + reportFile);
            } else {
                try {
                    Report docs = new Report(comparison, new Report.RunInfo(date, command, args.mode(),
                            DocsSection.CHART_LINK, problems));
                    DocsSection.write(args.root(), docs.body(), svg);
                    log.println("[compare] updated " + args.root().resolve(DocsSection.DOC) + " and "
                            + args.root().resolve(DocsSection.CHART));
                } catch (RuntimeException e) {
                    log.println("[compare] " + DocsSection.DOC + " NOT updated: " + e.getMessage());
                    docsFailed = true;
                }
            }
        }

        return !docsFailed;
    }

    /** The result files of the run (also those of failed systems, when readable: they show what was measured). */
    private Comparison merge(List<SystemUnderTest> systems, HarnessRunner runner,
                             List<HarnessRunner.Outcome> outcomes) {
        Map<String, Results.Parsed> files = new LinkedHashMap<>();
        for (SystemUnderTest s : systems) {
            Path f = runner.resultFile(s);
            boolean ran = outcomes.stream().anyMatch(o -> o.system().equals(s.name())
                    && o.status() != HarnessRunner.Status.NOT_BUILT);
            if (ran && Files.isRegularFile(f)) {
                try {
                    files.put(s.name(), Results.read(f));
                } catch (RuntimeException e) {
                    log.println("[compare] " + s.name() + ": result file left out of the report: " + e.getMessage());
                }
            }
        }
        return Comparison.of(systems.stream().map(SystemUnderTest::name).toList(), files);
    }
}
