package io.sluice.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.e2e.SluiceCluster.Host;
import io.sluice.storage.s3.testing.TcpFaultProxy;
import io.sluice.storage.s3.testing.TcpFaultProxy.Direction;
import io.sluice.testing.zookeeper.TestingZooKeeper;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Added latency between Sluice processes. This machine's kernel has no {@code tc netem} (the qdisc is
 * unknown even in a network namespace), so the latency is added in user space: every server of every
 * process (the job manager's RPC, each task manager's RPC and data server) is reached only through a
 * {@link TcpFaultProxy} of its own on a loopback address of its own ("its host", {@code 127.0.1.x}),
 * which the process advertises ({@code jobmanager.rpc.advertised-host}, {@code
 * taskmanager.advertised-host}) while it binds {@code 127.0.0.1} with the same port. A connection from
 * one process to another thus passes the receiver's proxy, which delays each direction: the one-way
 * latency between any two processes is the proxy's delay. ZooKeeper and REST (the test's own
 * questions) are not delayed.
 *
 * <p>A job manager and two task managers of one slot run the keyed counting job at parallelism 2 (its
 * keyed exchange crosses between the task managers). First without delay, then with {@value
 * #DELAY_MILLIS} ms plus up to {@value #JITTER_MILLIS} ms of jitter each way: the job keeps running,
 * checkpoints keep completing (each pays the trigger, the barrier across the task managers and the
 * acknowledgement: at least three one-way delays), and the final count of every key is exact. The
 * checkpoint durations of both phases are printed.
 */
class NetworkLatencyITCase {
    private static final int KEYS = 8;
    private static final long RECORDS = 10_000;
    private static final int RATE = 1_000;
    private static final int DELAY_MILLIS = 25;
    private static final int JITTER_MILLIS = 10;
    private static final int CHECKPOINTS_PER_PHASE = 6;

    @TempDir
    Path dir;

    private final List<TcpFaultProxy> links = new ArrayList<>();

    @AfterEach
    void closeLinks() {
        links.forEach(TcpFaultProxy::close);
    }

    @Test
    void checkpointsCompleteAndCountsAreExactWithLatencyBetweenAllProcesses() throws Exception {
        try (TestingServer zooKeeper = TestingZooKeeper.start(dir)) {
            Map<String, String> common = new LinkedHashMap<>();
            common.put("high-availability.type", "zookeeper");
            common.put("high-availability.zookeeper.quorum", zooKeeper.getConnectString());
            common.put("high-availability.cluster-id", "latency");
            common.put("high-availability.storage-dir", dir.resolve("ha-storage").toString());
            common.put("checkpoints.dir", dir.resolve("checkpoints").toString());
            common.put("checkpoints.interval", "300 ms");
            try (SluiceCluster cluster = new SluiceCluster(dir, common)) {
                try {
                    run(cluster);
                } catch (Throwable t) {
                    throw new AssertionError(t + cluster.diagnostics(), t);
                }
            }
        }
    }

    private void run(SluiceCluster cluster) throws Exception {
        // The job manager on "host" 127.0.1.1, the task managers on 127.0.1.2 and 127.0.1.3.
        int jmPort = freePort();
        TcpFaultProxy jmLink = link("127.0.1.1", jmPort);
        String jm = cluster.startJobManager(Host.MACHINE, Map.of("jobmanager.rpc.port", Integer.toString(jmPort),
                "jobmanager.rpc.advertised-host", "127.0.1.1")).restUrl();
        List<TcpFaultProxy> tmLinks = new ArrayList<>();
        for (int i = 2; i <= 3; i++) {
            String host = "127.0.1." + i;
            int rpcPort = freePort();
            int dataPort = freePort();
            tmLinks.add(link(host, rpcPort));
            tmLinks.add(link(host, dataPort));
            cluster.startTaskManager(Host.MACHINE, 1, Map.of("taskmanager.rpc.port", Integer.toString(rpcPort),
                    "taskmanager.data.port", Integer.toString(dataPort), "taskmanager.advertised-host", host));
        }
        await().atMost(Duration.ofSeconds(60)).until(() -> Rest.isLeader(jm) && Rest.registeredSlots(jm) == 2);

        Path output = dir.resolve("counts");
        String jobId = cluster.submitExample(jm, List.of("--parallelism", "2"), List.of("--records",
                Long.toString(RECORDS), "--keys", Integer.toString(KEYS), "--rate", Integer.toString(RATE), "--output",
                output.toString()));
        List<Long> plain = checkpointDurations(jm, jobId, System.currentTimeMillis());

        for (TcpFaultProxy link : links) {
            for (Direction d : Direction.values()) {
                link.setDelay(d, Duration.ofMillis(DELAY_MILLIS), Duration.ofMillis(JITTER_MILLIS));
            }
        }
        List<Long> delayed = checkpointDurations(jm, jobId, System.currentTimeMillis());
        System.out.printf("NetworkLatencyITCase: checkpoint durations (ms) without added latency: median %d, %s;"
                + " with %d ms + up to %d ms jitter each way between all processes: median %d, %s%n",
                median(plain), plain, DELAY_MILLIS, JITTER_MILLIS, median(delayed), delayed);

        await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(200))
                .until(() -> Rest.jobStatus(jm, jobId).filter("FINISHED"::equals).isPresent());
        KeyedCounts.assertExact(output, RECORDS, KEYS);

        // The traffic went through the links: the task managers to the job manager, the job manager to
        // the task managers' RPC, and each task manager to the other's data server.
        assertThat(jmLink.acceptedConnections()).as("connections to the job manager's RPC through its link").isPositive();
        assertThat(tmLinks).as("connections to every task manager's RPC and data server through its link")
                .allSatisfy(l -> assertThat(l.acceptedConnections()).isPositive());
        assertThat(median(delayed)).as("a checkpoint pays the trigger, the barrier between the task managers and"
                + " the acknowledgement, each at least %d ms (median ms)", DELAY_MILLIS)
                .isGreaterThanOrEqualTo(3L * DELAY_MILLIS);
    }

    /** A delaying link in front of {@code 127.0.0.1:port}, listening on {@code host:port}. */
    private TcpFaultProxy link(String host, int port) throws IOException {
        TcpFaultProxy link = new TcpFaultProxy(new InetSocketAddress("127.0.0.1", port), InetAddress.getByName(host),
                port, 64);
        links.add(link);
        return link;
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    /** The durations of the first {@value #CHECKPOINTS_PER_PHASE} checkpoints triggered after {@code sinceMillis}, in ms. */
    private static List<Long> checkpointDurations(String url, String jobId, long sinceMillis) {
        List<Long> durations = new ArrayList<>();
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100)).until(() -> {
            durations.clear();
            Rest.get(url, "/v1/jobs/" + jobId + "/checkpoints").filter(a -> a.status() == 200).ifPresent(a -> {
                List<JsonNode> history = new ArrayList<>();
                a.body().path("history").forEach(history::add);
                for (int i = history.size() - 1; i >= 0; i--) { // newest first in the answer
                    JsonNode h = history.get(i);
                    if (h.path("triggerTimestampMillis").asLong() > sinceMillis && durations.size() < CHECKPOINTS_PER_PHASE) {
                        durations.add(Math.round(h.path("durationMillis").asDouble()));
                    }
                }
            });
            return durations.size() == CHECKPOINTS_PER_PHASE;
        });
        return List.copyOf(durations);
    }

    private static long median(List<Long> values) {
        List<Long> sorted = values.stream().sorted().toList();
        return sorted.get(sorted.size() / 2);
    }
}
