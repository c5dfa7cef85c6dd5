package io.sluice.e2e;

import static org.awaitility.Awaitility.await;

import io.sluice.e2e.SluiceCluster.Host;
import io.sluice.e2e.SluiceCluster.SluiceProcess;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Throughput of the keyed counting job (unbounded, unthrottled, 1,024 keys, parallelism 2,
 * checkpoints every second on a local directory) across two task-manager processes — every
 * record whose key belongs to the other subtask crosses TCP between them — versus all in one
 * {@code sluice cluster} process with two task executors (channels in memory). Records per second
 * of the source, measured from the REST counters over {@code -Dsluice.bench.seconds} (default 10)
 * after a 5 s warm-up, alternating the two set-ups for {@code -Dsluice.bench.runs} (default 3)
 * rounds; prints the medians and their ratio. Not part of the default run:
 * {@code mvn -B -pl sluice-e2e -am verify -Dtest=none -Dsurefire.failIfNoSpecifiedTests=false
 * -Dit.test=ProcessThroughputBenchmark}.
 */
class ProcessThroughputBenchmark {
    @TempDir
    Path dir;

    @Test
    void acrossTwoTaskManagerProcessesVersusOneProcess() throws Exception {
        int runs = Integer.getInteger("sluice.bench.runs", 3);
        int seconds = Integer.getInteger("sluice.bench.seconds", 10);
        List<Double> separate = new ArrayList<>();
        List<Double> single = new ArrayList<>();
        for (int r = 0; r < runs; r++) {
            separate.add(measureProcesses(dir.resolve("processes-" + r), seconds));
            single.add(measureOneProcess(dir.resolve("single-" + r), seconds));
            System.out.printf("ProcessThroughputBenchmark: round %d: two task-manager processes %.2f M records/s,"
                    + " one process %.2f M records/s%n", r + 1, separate.get(r) / 1e6, single.get(r) / 1e6);
        }
        double a = median(separate);
        double b = median(single);
        System.out.printf("ProcessThroughputBenchmark: medians over %d rounds: two task-manager processes %.2f M"
                + " records/s, one process %.2f M records/s, ratio %.2f%n", runs, a / 1e6, b / 1e6, a / b);
    }

    private double measureProcesses(Path root, int seconds) throws Exception {
        try (org.apache.curator.test.TestingServer zooKeeper = new org.apache.curator.test.TestingServer(true)) {
            Map<String, String> common = new LinkedHashMap<>();
            common.put("high-availability.type", "zookeeper");
            common.put("high-availability.zookeeper.quorum", zooKeeper.getConnectString());
            common.put("high-availability.storage-dir", root.resolve("ha-storage").toString());
            common.put("checkpoints.dir", root.resolve("checkpoints").toString());
            try (SluiceCluster cluster = new SluiceCluster(root, common)) {
                SluiceProcess jm = cluster.startJobManager(Host.MACHINE, Map.of());
                cluster.startTaskManager(Host.MACHINE, 1, Map.of());
                cluster.startTaskManager(Host.MACHINE, 1, Map.of());
                await().atMost(Duration.ofSeconds(60)).until(() -> Rest.registeredSlots(jm.restUrl()) == 2);
                return measure(cluster, jm.restUrl(), seconds);
            }
        }
    }

    private double measureOneProcess(Path root, int seconds) throws Exception {
        Map<String, String> common = new LinkedHashMap<>();
        common.put("high-availability.dir", root.resolve("ha").toString());
        common.put("checkpoints.dir", root.resolve("checkpoints").toString());
        try (SluiceCluster cluster = new SluiceCluster(root, common)) {
            SluiceProcess c = cluster.startLocalCluster(List.of("--task-executors", "2", "--slots", "1"), Map.of());
            return measure(cluster, c.restUrl(), seconds);
        }
    }

    private static double measure(SluiceCluster cluster, String url, int seconds) throws Exception {
        String jobId = cluster.submitExample(url, List.of("--parallelism", "2", "-D", "checkpoints.interval=1 s"),
                List.of("--records", "0", "--keys", "1024", "--rate", "0"));
        await().atMost(Duration.ofSeconds(60)).until(() -> Rest.jobStatus(url, jobId).filter("RUNNING"::equals).isPresent());
        await().pollDelay(Duration.ofSeconds(5)).atMost(Duration.ofSeconds(6)).until(() -> true); // warm-up
        long[] start = sourceRecords(url, jobId);
        await().pollDelay(Duration.ofSeconds(seconds)).atMost(Duration.ofSeconds(seconds + 1)).until(() -> true);
        long[] end = sourceRecords(url, jobId);
        return (end[0] - start[0]) * 1e9 / (end[1] - start[1]);
    }

    /** The source's records out, and when they were read (nanos). */
    private static long[] sourceRecords(String url, String jobId) {
        long records = Rest.job(url, jobId).orElseThrow().path("vertices").get(0).path("recordsOut").asLong();
        return new long[] {records, System.nanoTime()};
    }

    private static double median(List<Double> values) {
        List<Double> sorted = values.stream().sorted().toList();
        return sorted.get(sorted.size() / 2);
    }
}
