package io.sluice.storage.s3;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.config.ConfigDocs;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Keeps the S3 options in docs/configuration.md in step with {@link S3Options}. */
class S3OptionsDocsTest {
    @Test
    void docsContainTheCurrentS3Options() throws Exception {
        String problem = ConfigDocs.syncSection(Path.of("..", "docs", "configuration.md"), "S3Options",
                ConfigDocs.render(List.of(S3Options.class)), Boolean.getBoolean("sluice.updateDocs"),
                "mvn -B -q -pl sluice-storage-s3 -am test -Dtest=S3OptionsDocsTest -Dsurefire.failIfNoSpecifiedTests=false -Dsluice.updateDocs=true");
        assertThat(problem).isNull();
    }
}
