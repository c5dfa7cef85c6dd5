package io.sluice.compare.driver;

import io.sluice.compare.Results;
import io.sluice.compare.Scenario;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The driver end to end, with {@link FakeHarness} standing in for the real harness modules. */
class CompareMainTest {

    /** A system whose "module" under {@code root} forks {@link FakeHarness}. */
    static SystemUnderTest fake(Path root, String name, boolean built) throws Exception {
        SystemUnderTest s = new SystemUnderTest(name, "fake/" + name, FakeHarness.class.getName());
        if (built) {
            Files.createDirectories(s.classesDir(root));
            Files.writeString(s.classpathFile(root), FakeHarness.classpath() + "\n");
        }
        return s;
    }

    static Path repo(Path root) throws Exception {
        Files.createDirectories(root.resolve("sluice-compare"));
        Files.createDirectories(root.resolve("docs"));
        Files.writeString(root.resolve("docs/benchmarks.md"), "# Benchmarks\n\n## Throughput\n\nHand-written.\n");
        return root;
    }

    record Run(int code, String log) {
    }

    static Run run(List<SystemUnderTest> known, Path root, String... args) {
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        PrintStream log = new PrintStream(buf, true, StandardCharsets.UTF_8);
        int code = CompareMain.run(args, known, root, log);
        return new Run(code, buf.toString(StandardCharsets.UTF_8));
    }

    @Test
    void runsEverySystemAndWritesReportChartAndDocs(@TempDir Path dir) throws Exception {
        Path root = repo(dir);
        List<SystemUnderTest> known = List.of(fake(root, "sluice", true), fake(root, "flink-1.13.6", true),
                fake(root, "flink-1.20.5", true));
        Path out = root.resolve("out");
        Run r = run(known, root, "--mode", "full", "--out-dir", out.toString(), "--write-docs");

        assertThat(r.code()).as(r.log()).isZero();
        for (String s : List.of("sluice", "flink-1.13.6", "flink-1.20.5")) {
            Results.Parsed p = Results.read(out.resolve(s + ".tsv"));
            assertThat(p.rows()).isNotEmpty();
            assertThat(p.headers().get("jvm-options")).contains("-Xmx2g -XX:+UseG1GC --add-opens=")
                    .contains("-Djdk.net.hosts.file=" + out.resolve("hosts"));
        }
        assertThat(Files.readAllLines(out.resolve("hosts"))).startsWith("127.0.0.1 localhost",
                "127.0.0.1 localhost/<unresolved>");
        assertThat(Files.readAllLines(out.resolve("jvm-options.txt"))).contains("-Xmx2g");
        assertThat(r.log()).contains("[compare] sluice (1/3): starting, time limit 1h 00m")
                .contains("[compare] flink-1.20.5 (3/3): finished in").contains("[compare] JVM options of every"
                + " harness: -Xmx2g").contains("[compare]   ok     flink-1.13.6: ok, ")
                .contains("[compare] updated " + root.resolve("docs/benchmarks.md"));

        String report = Files.readString(out.resolve(CompareMain.REPORT_FILE));
        for (Scenario s : Scenario.defaults(io.sluice.compare.Plan.full())) {
            assertThat(report).contains("#### " + s.title() + " (`" + s.id() + "`)");
        }
        assertThat(report).as("large-state runs in a full run only when --only names it")
                .doesNotContain("(`" + Scenario.LARGE_STATE.id() + "`)");
        assertThat(report).contains("![Sluice ÷ Apache Flink, headline figures, log scale](comparison.svg)")
                .contains("| command | `java -cp … io.sluice.compare.driver.CompareMain --mode full --out-dir");
        assertThat(Files.readString(out.resolve(CompareMain.CHART_FILE))).startsWith("<?xml");

        String doc = Files.readString(root.resolve("docs/benchmarks.md"));
        assertThat(doc).startsWith("# Benchmarks\n\n## Sluice and Apache Flink side by side\n\n")
                .contains("](img/comparison.svg)").contains("### Where Sluice is behind")
                .contains("## Throughput\n\nHand-written.\n");
        assertThat(root.resolve("docs/img/comparison.svg")).exists();
    }

    @Test
    void roundsRunEverySystemInARotatedOrderAndCompareTheMedians(@TempDir Path dir) throws Exception {
        Path root = repo(dir);
        List<SystemUnderTest> known = List.of(fake(root, "sluice", true), fake(root, "flink-1.20.5", true));
        Path out = root.resolve("out");

        Run r = run(known, root, "--mode", "smoke", "--out-dir", out.toString(), "--only", "throughput",
                "--rounds", "2");

        assertThat(r.code()).as(r.log()).isZero();
        assertThat(r.log()).contains("[compare] round 1/2: sluice, flink-1.20.5; result files in "
                + out.resolve("round-1")).contains("[compare] round 2/2: flink-1.20.5, sluice;")
                .contains("[compare] sluice (round 2/2, 2/2): starting")
                .contains("[compare] every round's figures: " + out.resolve(CompareMain.ROUNDS_FILE));
        for (String s : List.of("sluice", "flink-1.20.5")) {
            Results.Parsed first = Results.read(out.resolve("round-1/" + s + ".tsv"));
            Results.Parsed second = Results.read(out.resolve("round-2/" + s + ".tsv"));
            Results.Parsed median = Results.read(out.resolve(s + ".tsv"));
            assertThat(first.rows()).isNotEmpty().isEqualTo(second.rows()); // the fake writes the same figures
            assertThat(median.rows()).isEqualTo(first.rows());
            assertThat(median.headers().get(Rounds.HEADER)).startsWith("2 rounds");
        }
        assertThat(Files.readString(out.resolve(CompareMain.ROUNDS_FILE))).contains("| sluice | flink-1.20.5 |");
        assertThat(Files.readString(out.resolve(CompareMain.REPORT_FILE))).contains("`rounds`: 2 rounds");
    }

    @Test
    void reportOnlyRerendersReportAndDocsFromTheResultFilesWithoutRunningAnyHarness(@TempDir Path dir)
            throws Exception {
        Path root = repo(dir);
        List<SystemUnderTest> known = List.of(fake(root, "sluice", true), fake(root, "flink-1.13.6", true));
        Path out = root.resolve("out");
        Files.createDirectories(out);
        Files.writeString(out.resolve("sluice.tsv"), "# system\tsluice\n# sluice-setup\tlocal cluster, ZooKeeper HA\n"
                + "sluice\tthroughput\tv\trecords_per_s\t30000000\n");
        Files.writeString(out.resolve("flink-1.13.6.tsv"), "# system\tflink-1.13.6\n# version\t1.13.6\n"
                + "flink-1.13.6\tthroughput\tv\trecords_per_s\t15000000\n");

        Run r = run(known, root, "--out-dir", out.toString(), "--write-docs", "--report-only");

        assertThat(r.code()).as(r.log()).isZero();
        assertThat(r.log()).contains("--report-only: 2 result files").doesNotContain("starting, time limit");
        String report = Files.readString(out.resolve(CompareMain.REPORT_FILE));
        assertThat(report).contains("| 30,000,000 | 15,000,000 | 2.00x |")
                .contains("--report-only").contains("- **sluice**\n  - `sluice-setup`: local cluster, ZooKeeper HA")
                .contains("- **flink-1.13.6**\n  - `version`: 1.13.6");
        assertThat(Files.readString(root.resolve("docs/benchmarks.md"))).contains("| 30,000,000 | 15,000,000 |");

        Files.delete(out.resolve("flink-1.13.6.tsv"));
        Run missing = run(known, root, "--out-dir", out.toString(), "--report-only");
        assertThat(missing.code()).isEqualTo(1);
        assertThat(missing.log()).contains("flink-1.13.6: no readable result file").contains("run the comparison first");
    }

    @Test
    void aSystemThatDeclaresEverySelectedScenarioNotRunIsNotAFailure(@TempDir Path dir) throws Exception {
        Path root = repo(dir);
        List<SystemUnderTest> known = List.of(fake(root, "sluice", true), fake(root, "flink-1.13.6", true));
        Path out = root.resolve("out");
        Run r = run(known, root, "--mode", "full", "--out-dir", out.toString(), "--only",
                Scenario.THROUGHPUT_2TM.id());

        assertThat(r.code()).as(r.log()).isZero();
        assertThat(Results.read(out.resolve("flink-1.13.6.tsv")).rows()).isEmpty();
        assertThat(r.log()).contains("[compare]   ok     flink-1.13.6: ok, 0 figures");
    }

    @Test
    void aFailingOrHangingSystemDoesNotStopTheOthersAndFailsTheRun(@TempDir Path dir) throws Exception {
        Path root = repo(dir);
        List<SystemUnderTest> known = List.of(fake(root, "sluice", true), fake(root, "flink-crash", true),
                fake(root, "flink-hang", true), fake(root, "flink-empty", true), fake(root, "flink-1.20.5", true));
        Path out = root.resolve("out");
        Files.createDirectories(out);
        Files.writeString(out.resolve("flink-crash.tsv"), "# system\tstale\nflink-crash\tthroughput\tv\truns\t1\n");
        long start = System.nanoTime();
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        DriverArgs args = DriverArgs.parse(new String[] {"--mode", "full", "--out-dir", out.toString(), "--timeout",
                "10s", "--root", root.toString()}, known, root);
        CompareMain.RunResult result = new CompareMain(args, "test", new PrintStream(buf, true,
                StandardCharsets.UTF_8), Duration.ofSeconds(1)).execute();
        String log = buf.toString(StandardCharsets.UTF_8);

        assertThat(result.exitCode()).as(log).isEqualTo(1);
        assertThat(result.outcomes()).extracting(HarnessRunner.Outcome::status).containsExactly(
                HarnessRunner.Status.OK, HarnessRunner.Status.FAILED, HarnessRunner.Status.TIMED_OUT,
                HarnessRunner.Status.FAILED, HarnessRunner.Status.OK);
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(90));
        assertThat(log).contains("flink-crash: exited with code 3 after")
                .contains("flink-hang: timed out after 10.0 s and was stopped")
                .contains("flink-empty: exited with 0 after").contains("but wrote no rows to")
                .contains("[compare] flink-hang (3/5): running, ").contains("elapsed (limit 10.0 s)")
                .contains("FAILED: 3 of 5 systems did not produce their figures");
        // the crashed and the stopped harness wrote one scenario each before: those figures are kept
        assertThat(result.outcomes().get(1).detail()).contains("figures in").contains("are in the report");
        assertThat(result.comparison().hasFile("flink-hang")).isTrue();
        assertThat(result.comparison().rowCount("flink-crash")).isEqualTo(28); // status scenario only, not stale
        String report = Files.readString(result.report());
        assertThat(report).contains("### Problems in this run").contains("- flink-hang: timed out after 10.0 s");
    }

    @Test
    void anUnbuiltHarnessIsReportedWithHowToBuildIt(@TempDir Path dir) throws Exception {
        Path root = repo(dir);
        List<SystemUnderTest> known = List.of(fake(root, "sluice", true), fake(root, "flink-1.13.6", false));
        Run r = run(known, root, "--mode", "smoke", "--out-dir", root.resolve("out").toString());
        assertThat(r.code()).isEqualTo(1);
        assertThat(r.log()).contains("flink-1.13.6 (2/2): not run. flink-1.13.6: cannot run its harness, the module"
                + " fake/flink-1.13.6 does not exist").contains("must be on this branch and listed in");
        // the module is there but not built
        Files.createDirectories(root.resolve("fake/flink-1.13.6"));
        Run built = run(known, root, "--mode", "smoke", "--out-dir", root.resolve("out").toString());
        assertThat(built.log()).contains("target/classes does not exist. Build it first: mvn -B -q -DskipTests"
                + " package -pl fake/flink-1.13.6 -am");
        assertThat(Files.readString(root.resolve("out/comparison.md"))).contains("Smoke run");
    }

    @Test
    void writeDocsLeavesDocsAloneWhenASystemFailed(@TempDir Path dir) throws Exception {
        Path root = repo(dir);
        List<SystemUnderTest> known = List.of(fake(root, "sluice", true), fake(root, "flink-crash", true));
        Run r = run(known, root, "--out-dir", root.resolve("out").toString(), "--write-docs");
        assertThat(r.code()).isEqualTo(1);
        assertThat(r.log()).contains("docs/benchmarks.md NOT updated: not every system produced its figures");
        assertThat(Files.readString(root.resolve("docs/benchmarks.md"))).doesNotContain("comparison:begin");
        assertThat(root.resolve("docs/img")).doesNotExist();
    }

    @Test
    void harnessOutputIsPrefixedOnceAndDurationsAreReadable() {
        assertThat(HarnessRunner.prefixed("flink-1.13.6", "started")).isEqualTo("[flink-1.13.6] started");
        assertThat(HarnessRunner.prefixed("flink-1.13.6", "[flink-1.13.6] started")).isEqualTo("[flink-1.13.6] started");
        assertThat(HarnessRunner.duration(Duration.ofMillis(850))).isEqualTo("850 ms");
        assertThat(HarnessRunner.duration(Duration.ofMillis(12_345))).isEqualTo("12.3 s");
        assertThat(HarnessRunner.duration(Duration.ofSeconds(245))).isEqualTo("4m 05s");
        assertThat(HarnessRunner.duration(Duration.ofMinutes(62))).isEqualTo("1h 02m");
    }

    @Test
    void badCommandLineExitsWith2AndUsage(@TempDir Path dir) throws Exception {
        Path root = repo(dir);
        Run r = run(SystemUnderTest.ALL, root, "--mode", "smoke", "--write-docs");
        assertThat(r.code()).isEqualTo(2);
        assertThat(r.log()).contains("compare: --write-docs is refused with --mode smoke").contains("Usage:");
        assertThat(run(SystemUnderTest.ALL, root, "--help").code()).isZero();
    }

    @Test
    void smokeModeWithParallelRunsHarnessesAtTheSameTimeAndReportsThemInOrder(@TempDir Path dir) throws Exception {
        Path root = repo(dir);
        List<SystemUnderTest> known = List.of(fake(root, "flink-hang-a", true), fake(root, "flink-hang-b", true),
                fake(root, "sluice", true));
        Path out = root.resolve("out");
        // The time limit is every harness's: the hanging ones end by it, and the healthy one must start (a JVM) and
        // finish within it on a loaded machine (with 4 s it timed out in CI on 2026-12-06, its summary line missing).
        Run r = run(known, root, "--mode", "smoke", "--out-dir", out.toString(), "--parallel", "2", "--timeout",
                "15s");

        assertThat(r.code()).as(r.log()).isEqualTo(1);
        String log = r.log();
        assertThat(log).contains("[compare] running up to 2 harnesses at the same time (smoke mode)");
        // Each hanging harness runs until its time limit: both were started before either reached it.
        assertThat(log.indexOf("[compare] flink-hang-b (2/3): starting"))
                .isPositive().isLessThan(log.indexOf("[compare] flink-hang-a (1/3): time limit"));
        assertThat(log.indexOf("[compare] flink-hang-a (1/3): starting"))
                .isPositive().isLessThan(log.indexOf("[compare] flink-hang-b (2/3): time limit"));
        // The third waits for a free slot.
        assertThat(log.indexOf("[compare] sluice (3/3): starting")).isGreaterThan(Math.min(
                log.indexOf("[compare] flink-hang-a (1/3): time limit"),
                log.indexOf("[compare] flink-hang-b (2/3): time limit")));
        // The summary keeps the systems' order.
        int a = log.indexOf("[compare]   FAILED flink-hang-a: timed out");
        int b = log.indexOf("[compare]   FAILED flink-hang-b: timed out");
        int c = log.indexOf("[compare]   ok     sluice: ok, ");
        assertThat(a).as(log).isPositive();
        assertThat(b).as(log).isGreaterThan(a);
        assertThat(c).as(log).isGreaterThan(b);
        assertThat(Results.read(out.resolve("sluice.tsv")).rows()).isNotEmpty();
    }
}
