package io.sluice.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Keeps {@code docs/configuration.md} in step with the option classes. Regenerate with
 * {@value #REGENERATE}.
 */
class ConfigDocsTest {
    static final String REGENERATE =
            "mvn -B -q -pl sluice-core test -Dtest=ConfigDocsTest -Dsluice.updateDocs=true";
    private static final Path DOCS = Path.of("..", "docs", "configuration.md");
    private static final String BEGIN = "<!-- BEGIN GENERATED: ConfigDocs.render(ConfigDocs.OPTION_CLASSES) -->\n";
    private static final String END = "<!-- END GENERATED -->\n";

    @Test
    void docsContainTheCurrentRendering() throws IOException {
        String rendering = ConfigDocs.render(ConfigDocs.OPTION_CLASSES);
        if (Boolean.getBoolean("sluice.updateDocs")) {
            Files.createDirectories(DOCS.getParent());
            Files.writeString(DOCS, updated(readOrEmpty(), rendering), StandardCharsets.UTF_8);
        }
        String docs = readOrEmpty();
        if (!docs.contains(BEGIN + rendering + END)) {
            fail(DOCS.toAbsolutePath().normalize() + " is out of date with the configuration options."
                    + " Regenerate it from the repository root with:\n  " + REGENERATE
                    + "\nand commit the result. Expected generated section:\n" + BEGIN + rendering + END);
        }
    }

    @Test
    void rendersOneTablePerClassWithKeyDefaultTypeAndDescription() {
        String md = ConfigDocs.render(List.of(CheckpointingOptions.class));

        assertThat(md).startsWith("## CheckpointingOptions\n\n| Key | Default | Type | Description |\n");
        assertThat(md).contains("| `checkpoints.retained` | `3` | Integer | Number of completed checkpoints kept;"
                + " older ones are deleted. Must be at least 1. |\n");
        assertThat(md).contains("| `checkpoints.timeout` | `10 min` | Duration |");
        assertThat(md.indexOf("checkpoints.dir")).isLessThan(md.indexOf("checkpoints.interval"));
    }

    @Test
    void rendersEnumValuesInTheTypeColumn() {
        assertThat(ConfigDocs.render(List.of(RestartOptions.class)))
                .contains("| `restart-strategy` | `exponential-delay` | Enum (none, fixed-delay, exponential-delay, failure-rate) |");
    }

    @Test
    void rejectsClassesWithoutOptions() {
        assertThatThrownBy(() -> ConfigDocs.render(List.of(String.class)))
                .hasMessageContaining("java.lang.String declares no public static final ConfigOption fields");
    }

    private static String readOrEmpty() throws IOException {
        return Files.exists(DOCS) ? Files.readString(DOCS, StandardCharsets.UTF_8) : "";
    }

    /** Replaces the generated section of {@code docs}, keeping hand-written text around it. */
    private static String updated(String docs, String rendering) {
        int begin = docs.indexOf(BEGIN);
        int end = docs.indexOf(END);
        if (begin < 0 || end < begin) {
            return "# Configuration\n\nSluice reads these options from its configuration. Durations are written"
                    + " like `500 ms`, `10 s`, `1 min`, `2 h` or ISO-8601 `PT1S`.\n\n"
                    + BEGIN + rendering + END;
        }
        return docs.substring(0, begin) + BEGIN + rendering + END + docs.substring(end + END.length());
    }
}
