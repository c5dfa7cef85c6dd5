package io.sluice.compare.sluice;

import io.sluice.compare.LatencyProxy;
import io.sluice.config.Configuration;
import io.sluice.config.HighAvailabilityOptions;
import io.sluice.ha.loader.HighAvailabilityServicesLoader;
import io.sluice.ha.zookeeper.ZooKeeperHaOptions;
import io.sluice.ha.zookeeper.ZooKeeperHaServices;
import io.sluice.testing.zookeeper.TestingZooKeeper;
import io.sluice.util.ProcessTempFiles;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.curator.test.TestingServer;

/**
 * The ZooKeeper of the recovery scenarios: an in-process Curator {@link TestingServer}, reached only
 * through a {@link LatencyProxy} so that a scenario can make every ZooKeeper round trip slow. Every
 * HA services instance (one per cluster, one per extra session) connects through the proxy, with
 * the ZooKeeper HA module's default timeouts.
 *
 * <p>Threading: {@link #services} and {@link #proxy} from any thread; {@link #close} once, at the end.
 */
final class ZooKeeperSetup implements AutoCloseable {
    private final TestingServer server;
    private final LatencyProxy proxy;
    /** The server's files, deleted on {@link #close}. */
    private final Path directory;

    private ZooKeeperSetup(TestingServer server, LatencyProxy proxy, Path directory) {
        this.server = server;
        this.proxy = proxy;
        this.directory = directory;
    }

    /** Starts the server (on a free port) and the proxy in front of it. Blocking. */
    static ZooKeeperSetup start() throws Exception {
        Path directory = Files.createTempDirectory("sluice-compare-zookeeper-");
        TestingServer server = TestingZooKeeper.start(directory);
        try {
            return new ZooKeeperSetup(server, new LatencyProxy(server.getPort()), directory);
        } catch (IOException e) {
            server.close();
            ProcessTempFiles.deleteTree(directory);
            throw e;
        }
    }

    /** The proxy every client goes through; its delay is 0 unless a scenario sets it. */
    LatencyProxy proxy() {
        return proxy;
    }

    /** The connect string of the proxy. */
    String quorum() {
        return InetAddress.getLoopbackAddress().getHostAddress() + ":" + proxy.port();
    }

    /**
     * New ZooKeeper HA services (a new ZooKeeper session) for the cluster {@code clusterId}, loaded
     * as a job manager would load them from its configuration. Blocks until connected.
     */
    ZooKeeperHaServices services(String clusterId) throws Exception {
        Configuration config = new Configuration()
                .set(HighAvailabilityOptions.TYPE, HighAvailabilityServicesLoader.ZOOKEEPER)
                .set(ZooKeeperHaOptions.QUORUM, quorum())
                .set(ZooKeeperHaOptions.CLUSTER_ID, clusterId);
        return (ZooKeeperHaServices) HighAvailabilityServicesLoader.load(config);
    }

    @Override
    public void close() throws IOException {
        try {
            proxy.close();
        } finally {
            try {
                server.close();
            } finally {
                ProcessTempFiles.deleteTree(directory);
            }
        }
    }
}
