package io.sluice.compare;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class LargeStatePlanTest {

    @Test
    void keysFollowTheStateSizeAndTheSteadyRateIsOnePercentOfThem() {
        LargeStatePlan full = LargeStatePlan.of("full");
        assertThat(full.stateGb()).isEqualTo(4.0);
        assertThat(full.keys()).isEqualTo(30_769_231L);
        assertThat(full.steadyRate()).isEqualTo(307_692.31, org.assertj.core.data.Offset.offset(0.01));
        assertThat(full.parallelism()).isEqualTo(2);
        assertThat(full.rescaleTo()).isEqualTo(4);
        assertThat(full.steadyWindow()).as("several compaction cycles").isEqualTo(java.time.Duration.ofMinutes(2));
        assertThat(LargeStatePlan.of("smoke").keys()).isEqualTo(38_462L);
        assertThat(LargeStatePlan.of("full", 0.5).variant())
                .isEqualTo("0.5 GB: 3,846,154 keys x 130 B, 1 % of keys/s, checkpoints every 3000 ms");
    }

    @Test
    void aSteadyRateReplacesOnePercentOfTheKeysAndIsNamedInTheVariant() {
        HarnessArgs args = HarnessArgs.parse(new String[] {"--only", "large-state", "--steady-rate", "20000", "--out",
                "x.tsv"});
        LargeStatePlan plan = args.largeState();
        assertThat(plan.steadyRate()).isEqualTo(20_000, org.assertj.core.data.Offset.offset(1e-6));
        assertThat(plan.keys()).as("the state size is the plan's").isEqualTo(30_769_231L);
        assertThat(plan.checkpointInterval()).isEqualTo(LargeStatePlan.of("full").checkpointInterval());
        assertThat(plan.variant())
                .isEqualTo("4.0 GB: 30,769,231 keys x 130 B, 20,000 changes/s (0.065 % of keys/s), checkpoints every 3000 ms");
        assertThat(plan.describe()).contains("steadyRate=20000/s");
        assertThat(LargeStatePlan.of("full").withSteadyRate(400_000).variant()).as("above 1 %, by its rate too")
                .contains("400,000 changes/s (1.300 % of keys/s)");
        assertThatThrownBy(() -> HarnessArgs.parse(new String[] {"--steady-rate", "-5", "--out", "x.tsv"}))
                .hasMessageContaining("--steady-rate must be at least 1 record per second, not -5");
        assertThatThrownBy(() -> HarnessArgs.parse(new String[] {"--out", "x.tsv", "--steady-rate"}))
                .hasMessageContaining("--steady-rate needs a value");
    }

    @Test
    void taskFailoversReplaceThePlansAndAreChecked() {
        assertThat(LargeStatePlan.of("full").failovers()).as("one above 1.5 GB").isEqualTo(1);
        HarnessArgs args = HarnessArgs.parse(new String[] {"--only", "large-state", "--task-failovers", "5", "--out",
                "x.tsv"});
        assertThat(args.largeState().failovers()).isEqualTo(5);
        assertThat(args.largeState().keys()).as("the state size is the plan's").isEqualTo(30_769_231L);
        assertThat(args.largeState().describe()).contains("failovers=5");
        assertThatThrownBy(() -> HarnessArgs.parse(new String[] {"--task-failovers", "0", "--out", "x.tsv"}))
                .hasMessageContaining("--task-failovers must be from 1 to 20, not 0");
        assertThatThrownBy(() -> HarnessArgs.parse(new String[] {"--task-failovers", "many", "--out", "x.tsv"}))
                .hasMessageContaining("--task-failovers takes a whole number of failovers (e.g. 5), not 'many'");
    }

    @Test
    void badSizesAreRefusedSayingWhatToPass() {
        assertThatThrownBy(() -> LargeStatePlan.parseGb("four")).hasMessageContaining("--state-gb takes a number");
        assertThatThrownBy(() -> LargeStatePlan.parseGb("0")).hasMessageContaining("above 0");
        assertThatThrownBy(() -> LargeStatePlan.of("full", 0.0000001)).hasMessageContaining("pass a larger --state-gb");
    }

    @Test
    void harnessArgsLeaveLargeStateOutOfTheFullRunUnlessNamed() {
        HarnessArgs full = HarnessArgs.parse(new String[] {"--mode", "full", "--out", "x.tsv"});
        assertThat(full.scenarios()).doesNotContain(Scenario.LARGE_STATE).contains(Scenario.KAFKA_EXACTLY_ONCE);
        assertThat(full.largeState().stateGb()).isEqualTo(4.0);

        HarnessArgs named = HarnessArgs.parse(new String[] {"--only", "large-state", "--state-gb", "0.5", "--out",
                "x.tsv"});
        assertThat(named.scenarios()).containsExactly(Scenario.LARGE_STATE);
        assertThat(named.largeState().keys()).isEqualTo(3_846_154L);
        assertThat(named.out()).isEqualTo(Path.of("x.tsv"));

        HarnessArgs smoke = HarnessArgs.parse(new String[] {"--mode", "smoke", "--out", "x.tsv"});
        assertThat(smoke.scenarios()).contains(Scenario.LARGE_STATE);
        assertThat(smoke.largeState().stateGb()).isEqualTo(LargeStatePlan.SMOKE_GB);
        assertThat(smoke.largeStateStorage()).isEqualTo(HarnessArgs.Storage.LOCAL);
    }

    @Test
    void largeStateStorageIsLocalOrS3() {
        assertThat(HarnessArgs.parse(new String[] {"--large-state-storage", "s3", "--out", "x.tsv"})
                .largeStateStorage()).isEqualTo(HarnessArgs.Storage.S3);
        assertThat(HarnessArgs.parse(new String[] {"--large-state-storage", "local", "--out", "x.tsv"})
                .largeStateStorage()).isEqualTo(HarnessArgs.Storage.LOCAL);
        assertThatThrownBy(() -> HarnessArgs.parse(new String[] {"--large-state-storage", "hdfs", "--out", "x.tsv"}))
                .hasMessageContaining("--large-state-storage takes local or s3, not 'hdfs'");
        assertThatThrownBy(() -> HarnessArgs.parse(new String[] {"--out", "x.tsv", "--large-state-storage"}))
                .hasMessageContaining("--large-state-storage needs a value");
    }

    @Test
    void largeStateSettingsAreKeyValuePairsInOrderALaterOneWinning() {
        assertThat(HarnessArgs.parse(new String[] {"--out", "x.tsv"}).largeStateSettings()).isEmpty();
        HarnessArgs args = HarnessArgs.parse(new String[] {"--out", "x.tsv",
                "--large-state-set", "state.backend.rocksdb.compaction.level0-files=20",
                "--large-state-set", "network.in-flight-target = 0 ms",
                "--large-state-set", "state.backend.rocksdb.compaction.level0-files=16"});
        assertThat(args.largeStateSettings()).containsExactly(
                java.util.Map.entry("state.backend.rocksdb.compaction.level0-files", "16"),
                java.util.Map.entry("network.in-flight-target", "0 ms"));
        assertThatThrownBy(() -> HarnessArgs.parse(new String[] {"--out", "x.tsv", "--large-state-set", "level0"}))
                .hasMessageContaining("--large-state-set takes key=value").hasMessageContaining("not 'level0'");
        assertThatThrownBy(() -> HarnessArgs.parse(new String[] {"--out", "x.tsv", "--large-state-set", "=20"}))
                .hasMessageContaining("--large-state-set takes key=value");
        assertThatThrownBy(() -> HarnessArgs.parse(new String[] {"--out", "x.tsv", "--large-state-set"}))
                .hasMessageContaining("--large-state-set needs a value");
    }
}
