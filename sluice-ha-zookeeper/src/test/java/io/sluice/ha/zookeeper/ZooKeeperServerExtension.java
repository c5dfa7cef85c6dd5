package io.sluice.ha.zookeeper;

import io.sluice.config.Configuration;
import io.sluice.util.ProcessTempFiles;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * One real ZooKeeper (Curator's {@link TestingServer}) for all tests of a class: register it as a
 * {@code static} {@code @RegisterExtension} field. It starts before the class's {@code @BeforeAll}
 * methods and stops after its {@code @AfterAll} methods. Tests separate their data by cluster id.
 * Called from the JUnit thread that runs the class.
 */
final class ZooKeeperServerExtension implements BeforeAllCallback, AfterAllCallback {
    private TestingServer server;
    /** The server's files, deleted after it stopped. */
    private Path directory;

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        directory = Files.createTempDirectory("sluice-zookeeper-test-");
        server = ZkTestSupport.startServer(directory);
    }

    @Override
    public void afterAll(ExtensionContext context) throws Exception {
        try {
            if (server != null) {
                server.close();
                server = null;
            }
        } finally {
            if (directory != null) {
                ProcessTempFiles.deleteTree(directory);
                directory = null;
            }
        }
    }

    String connectString() {
        return running().getConnectString();
    }

    /** Stops the server and starts it again on the same port and data, as after a ZooKeeper restart. */
    void restart() throws Exception {
        running().restart();
    }

    /** {@link ZkTestSupport#config} for this server. */
    Configuration config(String clusterId) {
        return ZkTestSupport.config(connectString(), clusterId);
    }

    /** {@link ZkTestSupport#services} for this server; the caller closes them. */
    ZooKeeperHaServices services(String clusterId) throws Exception {
        return ZkTestSupport.services(connectString(), clusterId);
    }

    private TestingServer running() {
        if (server == null) {
            throw new IllegalStateException("ZooKeeper test server not running: register ZooKeeperServerExtension "
                    + "as a static @RegisterExtension field and use it only while the test class runs");
        }
        return server;
    }
}
