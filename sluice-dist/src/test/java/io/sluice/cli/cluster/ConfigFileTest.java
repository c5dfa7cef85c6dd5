package io.sluice.cli.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.config.Configuration;
import io.sluice.config.IllegalConfigurationException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConfigFileTest {
    @TempDir
    Path dir;

    @Test
    void flatKeyValueLinesAndNestedKeysGiveTheSameConfiguration() throws Exception {
        Path flat = Files.writeString(dir.resolve("flat.yaml"), """
                # comments are fine
                cluster.task-executors: 3
                checkpoints.interval: 1 s
                rest.port: 9090
                """);
        Path nested = Files.writeString(dir.resolve("nested.yaml"), """
                cluster:
                  task-executors: 3
                checkpoints:
                  interval: 1 s
                rest:
                  port: 9090
                """);
        Map<String, String> expected = Map.of("cluster.task-executors", "3", "checkpoints.interval", "1 s",
                "rest.port", "9090");
        assertThat(ConfigFile.load(flat).toMap()).isEqualTo(expected);
        assertThat(ConfigFile.load(nested).toMap()).isEqualTo(expected);
    }

    @Test
    void anEmptyFileIsAnEmptyConfiguration() throws Exception {
        assertThat(ConfigFile.load(Files.writeString(dir.resolve("e.yaml"), "")).toMap()).isEmpty();
        assertThat(new Configuration().toMap()).isEmpty();
    }

    @Test
    void mistakesNameTheFileAndWhatIsWrong() throws Exception {
        Path list = Files.writeString(dir.resolve("list.yaml"), "rest.port: [1, 2]\n");
        assertThatThrownBy(() -> ConfigFile.load(list)).isInstanceOf(IllegalConfigurationException.class)
                .hasMessageContaining("'rest.port'").hasMessageContaining("list.yaml").hasMessageContaining("is a list");
        Path broken = Files.writeString(dir.resolve("broken.yaml"), "a: b: c\n");
        assertThatThrownBy(() -> ConfigFile.load(broken)).isInstanceOf(IllegalConfigurationException.class)
                .hasMessageContaining("broken.yaml").hasMessageContaining("not valid YAML");
        assertThatThrownBy(() -> ConfigFile.load(dir.resolve("missing.yaml")))
                .isInstanceOf(IllegalConfigurationException.class).hasMessageContaining("Cannot read");
    }
}
