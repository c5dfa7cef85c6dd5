package io.sluice.rest;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.config.ConfigDocs;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Keeps the REST options in docs/configuration.md in step with {@link RestOptions}. */
class RestOptionsDocsTest {
    @Test
    void docsContainTheCurrentRestOptions() throws Exception {
        String problem = ConfigDocs.syncSection(Path.of("..", "docs", "configuration.md"), "RestOptions",
                ConfigDocs.render(List.of(RestOptions.class)), Boolean.getBoolean("sluice.updateDocs"),
                "mvn -B -q -pl sluice-rest -am test -Dtest=RestOptionsDocsTest -Dsurefire.failIfNoSpecifiedTests=false -Dsluice.updateDocs=true");
        assertThat(problem).isNull();
    }
}
