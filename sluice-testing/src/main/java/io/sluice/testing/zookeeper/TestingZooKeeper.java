package io.sluice.testing.zookeeper;

import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;

/**
 * Curator's embedded ZooKeeper server ({@link TestingServer}) with every file it writes under a directory the
 * caller owns. {@code new TestingServer(true)} puts its data directory into {@code java.io.tmpdir}, and ZooKeeper's
 * embedded server writes a {@code zookeeper.configuration<n>.properties} file beside the data directory that
 * nothing deletes: every test class that started one left a file in {@code /tmp} (1,436 there after some weeks of
 * runs on the development machine). Here both are in a fresh {@code zookeeper-<random>} directory under the given
 * one (a JUnit {@code @TempDir}, deleted with it), on random free ports, as before.
 *
 * <p>Test code only: curator-test is a provided dependency of this module, so a caller needs it on its own class
 * path (the modules that start ZooKeeper have it in test scope). Any thread.
 */
public final class TestingZooKeeper {
    private TestingZooKeeper() {}

    /** A started server whose files are all under {@code directory}; the caller closes it. */
    public static TestingServer start(Path directory) throws Exception {
        Path home = Files.createTempDirectory(Files.createDirectories(directory), "zookeeper-");
        Path data = Files.createDirectory(home.resolve("data"));
        // Ports -1: random free ones; the data directory is deleted when the server closes.
        return new TestingServer(new InstanceSpec(data.toFile(), -1, -1, -1, true, -1), true);
    }
}
