package io.sluice.compare.driver;

import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * The comparison in smoke mode with the real harnesses, as in {@code sluice-compare/run-comparison}
 * but with the tiny smoke plan and no docs. By default it runs Sluice and Flink 2.3 (the newest
 * version) with every scenario; {@code -Pcompare-all-smoke} (or {@code -Dcompare.smoke.systems=all},
 * or a list, see {@link SmokeSystems}) runs all five systems. Every system it runs must
 * produce a result file with rows for every scenario, and every figure Sluice reports must be reported
 * by every Flink version with a finite value ({@link SmokeCheck}, which also states when NaN is
 * allowed). The figures themselves are not checked: smoke runs last seconds on a shared machine.
 *
 * <p>Every harness module is built in every run (the reactor builds them before this module, so all
 * of them must compile); the systems not run are named in the test's output.
 *
 * <p>Deliberately no assumptions: a harness module it is asked to run that is missing or not built fails this test
 * (a comparison silently skipped in CI would look like a passing one). It needs the harness modules'
 * target/classes and target/classpath.txt, which the reactor builds first (the driver's pom depends
 * on them, test scope, no transitive dependencies). The harnesses' output is in this test's output
 * file under target/failsafe-reports; the report and result files under target/compare-smoke.
 */
class ComparisonSmokeITCase {
    /**
     * Harnesses run two at a time ({@code -Dcompare.smoke.parallel}, default 2): each is its own JVM with
     * its own temporary directories and free ports, and smoke figures are not compared, so the
     * systems need not run alone; CI's wall time is what counts here.
     */
    private static final int PARALLEL = Integer.getInteger("compare.smoke.parallel", 2);
    private static final String OUTPUT = "target/failsafe-reports/" + ComparisonSmokeITCase.class.getName()
            + "-output.txt";

    @Test
    void everySystemReportsEveryScenarioAndEveryFigureSluiceReports() throws Exception {
        Path root = root();
        List<SystemUnderTest> systems = SmokeSystems.parse(System.getProperty(SmokeSystems.PROPERTY), root);
        List<SystemUnderTest> notRun = SystemUnderTest.ALL.stream().filter(s -> !systems.contains(s)).toList();
        System.out.println("[ComparisonSmokeITCase] running " + SmokeSystems.names(systems) + (notRun.isEmpty() ? ""
                : "; not running " + SmokeSystems.names(notRun) + " (-Pcompare-all-smoke or -D"
                + SmokeSystems.PROPERTY + "=all runs every system)"));
        List<String> notBuilt = systems.stream().map(s -> s.missingBuild(root)).flatMap(Optional::stream).toList();
        if (!notBuilt.isEmpty()) {
            fail("The smoke comparison needs the harness module of every system it runs built, and "
                    + notBuilt.size() + " of " + systems.size() + " are not:\n  " + String.join("\n  ", notBuilt)
                    + "\nRun the whole build (mvn -B verify from the repository root), which builds them before"
                    + " compare-driver.");
        }
        Path outDir = root.resolve("sluice-compare/compare-driver/target/compare-smoke");
        DriverArgs args = DriverArgs.parse(new String[] {"--mode", "smoke", "--root", root.toString(), "--out-dir",
                outDir.toString(), "--parallel", Integer.toString(PARALLEL), "--systems", SmokeSystems.names(systems)},
                SystemUnderTest.ALL, root);
        CompareMain.RunResult run = new CompareMain(args, "ComparisonSmokeITCase (CompareMain --mode smoke)",
                System.out, Duration.ofSeconds(30)).execute();

        assertThat(run.outcomes()).as("harnesses run").hasSize(systems.size());
        for (SystemUnderTest s : systems) {
            assertThat(outDir.resolve(s.name() + ".tsv")).as("%s wrote no result file; its output is in %s",
                    s.name(), OUTPUT).isRegularFile();
        }
        List<String> failed = run.outcomes().stream().filter(o -> !o.ok()).map(HarnessRunner.Outcome::describe)
                .toList();
        assertThat(failed).as("harnesses that failed (their output is in %s)", OUTPUT).isEmpty();
        List<String> problems = SmokeCheck.problems(run.comparison());
        assertThat(problems).as("figures missing or not finite; the report is %s", run.report()).isEmpty();
        assertThat(run.exitCode()).isZero();
        assertThat(Files.readString(run.report())).contains("Smoke run");
    }

    /** The repository root: system property compare.root (set by the pom), else found from here. */
    private static Path root() {
        String prop = System.getProperty("compare.root");
        Path root = prop != null ? Path.of(prop) : DriverArgs.findRoot(Path.of("").toAbsolutePath());
        root = root.toAbsolutePath().normalize();
        if (!Files.isDirectory(root.resolve("sluice-compare"))) {
            fail("compare.root=" + root + " is not the repository root (no sluice-compare/ in it)");
        }
        return root;
    }
}
