package io.sluice.compare.flink;

import io.sluice.compare.LatencyProxy;
import java.io.File;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import org.apache.flink.shaded.zookeeper3.org.apache.zookeeper.server.ServerCnxnFactory;
import org.apache.flink.shaded.zookeeper3.org.apache.zookeeper.server.ZooKeeperServer;

/**
 * A standalone ZooKeeper server in this JVM, from the same shaded ZooKeeper jar the Flink version
 * under test uses (so client and server versions match: 3.4.14 for Flink 1.13/1.14, 3.7.1 for
 * 1.20), reached through a {@link LatencyProxy} whose delay the harness sets.
 */
final class EmbeddedZooKeeper implements AutoCloseable {
    private final ZooKeeperServer server;
    private final ServerCnxnFactory connections;
    private final LatencyProxy proxy;

    EmbeddedZooKeeper(File dataDir) throws IOException, InterruptedException {
        server = new ZooKeeperServer(dataDir, dataDir, 2000);
        connections = ServerCnxnFactory.createFactory(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 1000);
        connections.startup(server);
        proxy = new LatencyProxy(connections.getLocalPort());
    }

    /**
     * The quorum string for Flink: {@code localhost:<proxy port>}. Flink 1.13/1.14's ZooKeeper 3.4
     * client on JDK 14+ needs the host name {@code localhost/<unresolved>} in the hosts file given by
     * {@code -Djdk.net.hosts.file} (the comparison driver writes it).
     */
    String quorum() {
        return "localhost:" + proxy.port();
    }

    void setRoundTripDelay(Duration delay) {
        proxy.setDelay(delay);
    }

    @Override
    public void close() throws IOException {
        proxy.close();
        connections.shutdown();
        server.shutdown();
    }
}
