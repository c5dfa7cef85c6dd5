package io.sluice.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.api.StreamExecutionEnvironment;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Every key of a configuration is checked at start-up; a typo fails naming the nearest known key. */
class ConfigurationValidatorTest {

    @Test
    void aMistypedKeyFailsTheEnvironmentNamingTheNearestKey() {
        // The reported case: before, this gave a job with checkpointing off and no warning.
        Configuration conf = new Configuration().setString("checkpoints.intervall", "1 s");
        assertThatThrownBy(() -> StreamExecutionEnvironment.create(conf))
                .isInstanceOf(IllegalConfigurationException.class)
                .hasMessage("Unknown configuration key 'checkpoints.intervall'; did you mean 'checkpoints.interval'?");
    }

    @Test
    void everyProblemIsReportedOnePerLine() {
        Configuration conf = new Configuration()
                .setString("checkpoints.intervall", "1 s")
                .setString("pipeline.paralelism", "4")
                .setString("checkpoints.retained", "none")
                .setString("restart-strategy", "fixed-delay");
        assertThatThrownBy(conf::validateAll)
                .isInstanceOf(IllegalConfigurationException.class)
                .satisfies(e -> assertThat(e.getMessage().split("\n")).containsExactlyInAnyOrder(
                        "Unknown configuration key 'checkpoints.intervall'; did you mean 'checkpoints.interval'?",
                        "Invalid value 'none' for checkpoints.retained: expected an integer such as 4",
                        "Unknown configuration key 'pipeline.paralelism'; did you mean 'pipeline.parallelism'?"));
    }

    @Test
    void knownKeysWithValidValuesPass() {
        Configuration conf = new Configuration()
                .set(CheckpointingOptions.INTERVAL, Duration.ofSeconds(1))
                .setString("high-availability.type", "embedded")
                .setString("cluster.task-executors", "3");
        assertThatCode(conf::validateAll).doesNotThrowAnyException();
        assertThat(StreamExecutionEnvironment.create(conf).jobConfig().checkpointInterval())
                .isEqualTo(Duration.ofSeconds(1));
    }

    @Test
    void userKeysAreOnlyWarnedAbout() {
        Configuration conf = new Configuration().setString("user.my-job.threshold", "17");
        assertThatCode(conf::validateAll).doesNotThrowAnyException();
        assertThat(StreamExecutionEnvironment.create(conf)).isNotNull();
    }

    @Test
    void aKeyFarFromEveryKnownOneSaysWhereTheKeysAreListed() {
        assertThatThrownBy(() -> new Configuration().setString("colour", "blue").validateAll())
                .hasMessage("Unknown configuration key 'colour'; the known keys are listed in docs/configuration.md"
                        + " (settings for your own code go under 'user.')");
    }

    @Test
    void optionsOfAModuleThatIsNotOnTheClassPathAreNamedAsSuch() {
        // sluice-core's tests do not have sluice-storage-s3 on the class path.
        assertThatThrownBy(() -> new Configuration().setString("s3.endpoint", "http://localhost:9000").validateAll())
                .hasMessage("Unknown configuration key 's3.endpoint': options under 's3.' come with module"
                        + " sluice-storage-s3, which is not on the class path");
    }

    @Test
    void openPrefixesAndOptionClassesComeFromTheGivenList() {
        KnownOptions known = KnownOptions.of(List.of(CheckpointingOptions.class), List.of("extra."));
        Configuration conf = new Configuration().setString("extra.anything", "x").setString("checkpoints.dir", "/d");
        assertThatCode(() -> ConfigurationValidator.validate(conf, known)).doesNotThrowAnyException();
        assertThatThrownBy(() -> ConfigurationValidator.validate(conf.setString("pipeline.parallelism", "2"), known))
                .hasMessageContaining("Unknown configuration key 'pipeline.parallelism'");
        assertThat(known.nearestKey("checkpoint.dir")).contains("checkpoints.dir");
        assertThat(known.nearestKey("zzzzzzzz")).isEmpty();
    }
}
