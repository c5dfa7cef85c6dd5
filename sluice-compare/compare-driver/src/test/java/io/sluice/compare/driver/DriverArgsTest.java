package io.sluice.compare.driver;

import io.sluice.compare.Scenario;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class DriverArgsTest {

    static DriverArgs parse(Path cwd, String... args) {
        return DriverArgs.parse(args, SystemUnderTest.ALL, cwd);
    }

    @Test
    void defaultsFindTheRootAboveTheCurrentDirectory(@TempDir Path root) throws Exception {
        Path deep = Files.createDirectories(root.resolve("sluice-compare/compare-driver/src"));
        DriverArgs a = parse(deep);
        assertThat(a.root()).isEqualTo(root.toAbsolutePath().normalize());
        assertThat(a.mode()).isEqualTo("full");
        assertThat(a.systems()).isEqualTo(SystemUnderTest.ALL);
        assertThat(a.outDir()).isEqualTo(a.root().resolve("sluice-compare/compare-driver/target/compare"));
        assertThat(a.writeDocs()).isFalse();
        assertThat(a.only()).isEmpty();
        assertThat(a.onlyArgument()).isEmpty();
        assertThat(a.timeout()).isEqualTo(Duration.ofMinutes(60));
        assertThat(parse(deep, "--mode", "smoke").timeout()).isEqualTo(Duration.ofMinutes(10));
    }

    @Test
    void explicitOptions(@TempDir Path root) throws Exception {
        Files.createDirectories(root.resolve("sluice-compare"));
        Path elsewhere = Files.createDirectories(root.resolve("x"));
        DriverArgs a = DriverArgs.parse(new String[] {"--mode", "smoke", "--systems", "flink-1.20.5,sluice",
                "--root", root.toString(), "--out-dir", elsewhere.resolve("out").toString(), "--only",
                "throughput,task-failover", "--timeout", "90s"}, SystemUnderTest.ALL, Path.of("/"));
        assertThat(a.systems()).containsExactly(SystemUnderTest.SLUICE, SystemUnderTest.FLINK_1_20);
        assertThat(a.outDir()).isEqualTo(elsewhere.resolve("out").toAbsolutePath());
        assertThat(a.only()).isEqualTo(Set.of(Scenario.THROUGHPUT, Scenario.TASK_FAILOVER));
        assertThat(a.onlyArgument()).contains("task-failover,throughput");
        assertThat(a.timeout()).isEqualTo(Duration.ofSeconds(90));
        assertThat(a.smoke()).isTrue();
        assertThat(a.harnessOptions()).containsExactly("--only", "task-failover,throughput");
    }

    @Test
    void stateSizeOfTheLargeStateScenarioIsPassedToEveryHarness(@TempDir Path root) throws Exception {
        Files.createDirectories(root.resolve("sluice-compare"));
        DriverArgs a = parse(root, "--only", "large-state", "--state-gb", "0.5");
        assertThat(a.stateGb()).isEqualTo("0.5");
        assertThat(a.harnessOptions()).containsExactly("--only", "large-state", "--state-gb", "0.5");
        assertThat(parse(root).harnessOptions()).isEmpty();
        assertThatThrownBy(() -> parse(root, "--state-gb", "lots")).hasMessageContaining("--state-gb takes a number");
    }

    @Test
    void steadyRateOfTheLargeStateScenarioIsPassedToEveryHarnessButNeverToTheDocs(@TempDir Path root) throws Exception {
        Files.createDirectories(root.resolve("sluice-compare"));
        DriverArgs a = parse(root, "--only", "large-state", "--state-gb", "4", "--steady-rate", "20000");
        assertThat(a.steadyRate()).isEqualTo("20000");
        assertThat(a.harnessOptions()).containsExactly("--only", "large-state", "--state-gb", "4", "--steady-rate",
                "20000");
        assertThatThrownBy(() -> parse(root, "--steady-rate", "fast")).hasMessageContaining(
                "--steady-rate takes a number of records per second");
        assertThatThrownBy(() -> parse(root, "--steady-rate", "0")).hasMessageContaining("at least 1 record per second");
        assertThatThrownBy(() -> parse(root, "--mode", "full", "--write-docs", "--steady-rate", "20000"))
                .hasMessageContaining("--steady-rate is refused with --write-docs");
    }

    @Test
    void taskFailoversArePassedToEveryHarnessButNeverToTheDocs(@TempDir Path root) throws Exception {
        Files.createDirectories(root.resolve("sluice-compare"));
        DriverArgs a = parse(root, "--only", "large-state", "--task-failovers", "5");
        assertThat(a.taskFailovers()).isEqualTo("5");
        assertThat(a.harnessOptions()).containsExactly("--only", "large-state", "--task-failovers", "5");
        assertThatThrownBy(() -> parse(root, "--task-failovers", "21")).hasMessageContaining(
                "--task-failovers must be from 1 to 20, not 21");
        assertThatThrownBy(() -> parse(root, "--mode", "full", "--write-docs", "--task-failovers", "3"))
                .hasMessageContaining("--task-failovers is refused with --write-docs");
    }

    @Test
    void writeDocsIsRefusedInSmokeModeAndForPartialRuns(@TempDir Path root) throws Exception {
        Files.createDirectories(root.resolve("sluice-compare"));
        assertThat(parse(root, "--mode", "full", "--write-docs").writeDocs()).isTrue();
        assertThatThrownBy(() -> parse(root, "--mode", "smoke", "--write-docs"))
                .hasMessageContaining("--write-docs is refused with --mode smoke");
        assertThatThrownBy(() -> parse(root, "--write-docs", "--mode", "smoke"))
                .hasMessageContaining("must never reach docs/");
        assertThatThrownBy(() -> parse(root, "--write-docs", "--only", "throughput"))
                .hasMessageContaining("needs every system and every scenario");
        assertThatThrownBy(() -> parse(root, "--write-docs", "--systems", "sluice,flink-1.13.6"))
                .hasMessageContaining("needs every system and every scenario");
    }

    @Test
    void parallelRunsAreForSmokeModeOnly(@TempDir Path root) throws Exception {
        Files.createDirectories(root.resolve("sluice-compare"));
        assertThat(parse(root, "--mode", "smoke").parallel()).isEqualTo(1);
        assertThat(parse(root, "--mode", "full").parallel()).isEqualTo(1);
        assertThat(parse(root, "--mode", "smoke", "--parallel", "2").parallel()).isEqualTo(2);
        assertThatThrownBy(() -> parse(root, "--mode", "full", "--parallel", "2"))
                .hasMessageContaining("--parallel 2 is refused with --mode full");
        assertThatThrownBy(() -> parse(root, "--parallel", "2"))
                .hasMessageContaining("only comparable when each system runs alone");
        assertThatThrownBy(() -> parse(root, "--mode", "smoke", "--parallel", "0"))
                .hasMessageContaining("at least 1");
        assertThatThrownBy(() -> parse(root, "--mode", "smoke", "--parallel", "two"))
                .hasMessageContaining("takes a number of harnesses");
    }

    @Test
    void roundsRunEverySystemSeveralTimesButNotWithOptionsThatAssumeOneRun(@TempDir Path root) throws Exception {
        Files.createDirectories(root.resolve("sluice-compare"));
        assertThat(parse(root).rounds()).isEqualTo(1);
        assertThat(parse(root, "--rounds", "5").rounds()).isEqualTo(5);
        assertThat(parse(root, "--mode", "smoke", "--rounds", "2").rounds()).isEqualTo(2);
        assertThatThrownBy(() -> parse(root, "--rounds", "0")).hasMessageContaining("--rounds must be at least 1");
        assertThatThrownBy(() -> parse(root, "--rounds", "five")).hasMessageContaining("takes a number of rounds");
        assertThatThrownBy(() -> parse(root, "--mode", "smoke", "--rounds", "2", "--parallel", "2"))
                .hasMessageContaining("--rounds 2 is refused with --parallel 2");
        assertThatThrownBy(() -> parse(root, "--rounds", "2", "--report-only"))
                .hasMessageContaining("refused with --report-only");
        assertThatThrownBy(() -> parse(root, "--rounds", "2", "--write-docs"))
                .hasMessageContaining("refused with --write-docs");
    }

    @Test
    void badArgumentsSayWhatIsWrong(@TempDir Path root) throws Exception {
        Files.createDirectories(root.resolve("sluice-compare"));
        assertThatThrownBy(() -> parse(root, "--mode", "fast")).hasMessageContaining("'full' or 'smoke'");
        assertThatThrownBy(() -> parse(root, "--systems", "flink-1.15")).hasMessageContaining("Unknown system"
                + " 'flink-1.15'").hasMessageContaining("sluice,flink-1.13.6,flink-1.14.6,flink-1.20.5,flink-2.3.0");
        assertThatThrownBy(() -> parse(root, "--systems", "sluice,sluice")).hasMessageContaining("twice");
        assertThatThrownBy(() -> parse(root, "--systems", ",")).hasMessageContaining("names no system");
        assertThatThrownBy(() -> parse(root, "--only", "latency")).hasMessageContaining("Unknown scenario 'latency'")
                .hasMessageContaining("status-during-stall");
        assertThatThrownBy(() -> parse(root, "--timeout", "soon")).hasMessageContaining("like 90s, 10m or 1h");
        assertThatThrownBy(() -> parse(root, "--timeout", "0s")).hasMessageContaining("positive");
        assertThatThrownBy(() -> parse(root, "--out")).hasMessageContaining("Unknown option '--out'");
        assertThatThrownBy(() -> parse(root, "--out-dir")).hasMessageContaining("--out-dir needs a value");
        assertThatThrownBy(() -> parse(root, "--root", root.resolve("nope").toString()))
                .hasMessageContaining("has no sluice-compare/ directory");
    }

    @Test
    void withoutARootAboveTheCurrentDirectoryAskForOne(@TempDir Path dir) {
        assertThatThrownBy(() -> parse(dir)).hasMessageContaining("pass --root <dir>");
    }

    @Test
    void helpNeedsNoRoot(@TempDir Path dir) {
        assertThat(parse(dir, "--help").help()).isTrue();
    }

    @Test
    void durations() {
        assertThat(DriverArgs.parseDuration("1h")).isEqualTo(Duration.ofHours(1));
        assertThat(DriverArgs.parseDuration("15")).isEqualTo(Duration.ofMinutes(15));
        assertThat(DriverArgs.parseDuration("500ms")).isEqualTo(Duration.ofMillis(500));
        assertThat(List.of(DriverArgs.USAGE)).allMatch(u -> u.contains("--write-docs"));
    }
}
