package io.sluice.ha.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.config.ConfigDocs;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Keeps the ZooKeeper options in docs/configuration.md in step with {@link ZooKeeperHaOptions}. */
class ZooKeeperHaOptionsDocsTest {
    @Test
    void docsContainTheCurrentZooKeeperOptions() throws Exception {
        String problem = ConfigDocs.syncSection(Path.of("..", "docs", "configuration.md"), "ZooKeeperHaOptions",
                ConfigDocs.render(List.of(ZooKeeperHaOptions.class)), Boolean.getBoolean("sluice.updateDocs"),
                "mvn -B -q -pl sluice-ha-zookeeper -am test -Dtest=ZooKeeperHaOptionsDocsTest -Dsurefire.failIfNoSpecifiedTests=false -Dsluice.updateDocs=true");
        assertThat(problem).isNull();
    }
}
