package io.sluice.state.rocksdb;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.config.ConfigDocs;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Keeps the RocksDB options in docs/configuration.md in step with {@link RocksDbOptions}. */
class RocksDbOptionsDocsTest {
    @Test
    void docsContainTheCurrentRocksDbOptions() throws Exception {
        String problem = ConfigDocs.syncSection(Path.of("..", "docs", "configuration.md"), "RocksDbOptions",
                ConfigDocs.render(List.of(RocksDbOptions.class)), Boolean.getBoolean("sluice.updateDocs"),
                "mvn -B -q -pl sluice-state-rocksdb -am test -Dtest=RocksDbOptionsDocsTest -Dsurefire.failIfNoSpecifiedTests=false -Dsluice.updateDocs=true");
        assertThat(problem).isNull();
    }
}
