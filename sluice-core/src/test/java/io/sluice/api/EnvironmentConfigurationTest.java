package io.sluice.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.config.Configuration;
import io.sluice.config.IllegalConfigurationException;
import io.sluice.config.RestartStrategyConfig;
import io.sluice.graph.JobConfig;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The typed options reach the jobs an environment builds. */
class EnvironmentConfigurationTest {

    @Test
    void pipelineCheckpointAndRestartOptionsBecomeTheJobsSettings() {
        Configuration conf = new Configuration()
                .setString("pipeline.parallelism", "3")
                .setString("pipeline.max-parallelism", "64")
                .setString("checkpoints.interval", "250 ms")
                .setString("checkpoints.dir", "/tmp/somewhere")
                .setString("checkpoints.retained", "5")
                .setString("checkpoints.timeout", "1 min")
                .setString("checkpoints.tolerable-failures", "7")
                .setString("checkpoints.inline-state-threshold", "4096")
                .setString("restart-strategy", "exponential-delay");
        StreamExecutionEnvironment env = StreamExecutionEnvironment.create(conf);
        assertThat(env.getParallelism()).isEqualTo(3);
        assertThat(env.getMaxParallelism()).isEqualTo(64);
        JobConfig job = env.jobConfig();
        assertThat(job.checkpointInterval()).isEqualTo(Duration.ofMillis(250));
        assertThat(job.checkpointDir()).isEqualTo("/tmp/somewhere");
        assertThat(job.retainedCheckpoints()).isEqualTo(5);
        assertThat(job.checkpointTimeout()).isEqualTo(Duration.ofMinutes(1));
        assertThat(job.tolerableCheckpointFailures()).isEqualTo(7);
        assertThat(job.inlineStateThreshold()).isEqualTo(4096);
        assertThat(job.restartStrategy()).isInstanceOf(RestartStrategyConfig.ExponentialDelay.class);
    }

    @Test
    void anEmptyConfigurationGivesTheSameDefaultsAsCreate() {
        assertThat(StreamExecutionEnvironment.create(new Configuration()).jobConfig())
                .isEqualTo(StreamExecutionEnvironment.create().jobConfig());
    }

    @Test
    void anInvalidValueIsRejectedNamingTheKey() {
        Configuration conf = new Configuration().setString("checkpoints.retained", "0");
        assertThatThrownBy(() -> StreamExecutionEnvironment.create(conf))
                .isInstanceOf(IllegalConfigurationException.class)
                .hasMessageContaining("checkpoints.retained");
    }

    @Test
    void theInlineStateThresholdDefaultsTo20KibAndIsBounded() {
        assertThat(StreamExecutionEnvironment.create().jobConfig().inlineStateThreshold()).isEqualTo(20 * 1024);
        assertThat(StreamExecutionEnvironment.create().setInlineStateThreshold(0).jobConfig().inlineStateThreshold())
                .as("0 turns inlining off").isZero();
        Configuration tooLarge = new Configuration().setString("checkpoints.inline-state-threshold", "2000000");
        assertThatThrownBy(() -> StreamExecutionEnvironment.create(tooLarge))
                .isInstanceOf(IllegalConfigurationException.class)
                .hasMessageContaining("checkpoints.inline-state-threshold")
                .hasMessageContaining("between 0 and 1048576");
        assertThatThrownBy(() -> StreamExecutionEnvironment.create().setInlineStateThreshold(-1).jobConfig())
                .isInstanceOf(io.sluice.api.errors.InvalidJobException.class)
                .hasMessageContaining("between 0 (off) and 1048576 bytes, got -1");
    }

    @Test
    void theStateBackendIsTheJobsOnlyWhenItChoseOne() {
        assertThat(StreamExecutionEnvironment.create().jobConfig().stateBackend())
                .as("unset: the task executors' default").isNull();
        assertThat(StreamExecutionEnvironment.create(new Configuration().setString("state.backend", "rocksdb"))
                .jobConfig().stateBackend()).isEqualTo("rocksdb");
        assertThat(StreamExecutionEnvironment.create().setStateBackend(io.sluice.config.StateBackendType.HEAP)
                .jobConfig().stateBackend()).isEqualTo("heap");
        assertThatThrownBy(() -> StreamExecutionEnvironment.create(new Configuration().setString("state.backend", "tape")))
                .isInstanceOf(IllegalConfigurationException.class).hasMessageContaining("heap, rocksdb");
    }

    @Test
    void taskLocalRecoveryIsOffByDefaultAndOnWithItsOption() {
        assertThat(StreamExecutionEnvironment.create().jobConfig().localRecovery()).as("the default").isFalse();
        StreamExecutionEnvironment on = StreamExecutionEnvironment.create(new Configuration()
                .setString("state.backend.local-recovery", "true"));
        assertThat(on.jobConfig().localRecovery()).as("state.backend.local-recovery: true").isTrue();
        assertThat(on.setLocalRecovery(false).jobConfig().localRecovery()).as("the code's choice wins").isFalse();
        assertThatThrownBy(() -> StreamExecutionEnvironment.create(new Configuration()
                .setString("state.backend.local-recovery", "sometimes")))
                .isInstanceOf(IllegalConfigurationException.class).hasMessageContaining("state.backend.local-recovery");
    }
}
