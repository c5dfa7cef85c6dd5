package io.sluice.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.sluice.e2e.SluiceCluster.Host;
import io.sluice.e2e.SluiceCluster.SluiceProcess;
import io.sluice.storage.s3.S3ProxyServer;
import io.sluice.storage.s3.testing.TcpFaultProxy;
import io.sluice.testing.zookeeper.TestingZooKeeper;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A task manager SIGKILLed while it uploads a RocksDB incremental checkpoint to S3, after some of the checkpoint's
 * new table files went up: nobody hears of those objects (no acknowledgement, and the process that would delete a
 * failed upload's files is dead), the checkpoint never completes, and before 2026-12-07 they stayed in the bucket
 * until the job's checkpoints were deleted. Now the job master deletes them once a later checkpoint completed, while
 * the job runs on a new task manager to exact counts.
 *
 * <p>Real processes: a job manager (ZooKeeper HA in this JVM), the victim task manager, whose S3 traffic goes through a
 * {@link TcpFaultProxy} that delays every chunk by 150 ms each way once the job runs, so that its upload takes a
 * second or more after its first table file lands (the files go up sorted by name: table files, then {@code
 * CURRENT}, {@code MANIFEST}, {@code OPTIONS}); the test polls the bucket and kills it as soon as an object of a
 * checkpoint newer than the latest completed one appears. Then a second task manager, with direct S3, takes the job.
 */
class AbandonedUploadProcessesITCase {
    private static final String BUCKET = "checkpoints";
    private static final int KEYS = 64;
    /** 30 s of input at {@code RATE}: the kill comes a few seconds in, the rest runs after the recovery. */
    private static final long RECORDS = 30_000;
    private static final int RATE = 1_000;
    private static final Pattern UPLOADED_FOR = Pattern.compile("/shared/ck(\\d+)-");

    @TempDir
    Path dir;

    @Test
    void theTableFilesOfATaskManagerKilledWhileUploadingAreDeletedOnceALaterCheckpointCompletes() throws Exception {
        try (TestingServer zooKeeper = TestingZooKeeper.start(dir);
             S3ProxyServer s3 = S3ProxyServer.start(BUCKET);
             TcpFaultProxy slowLink = new TcpFaultProxy("127.0.0.1", s3.port())) {
            Map<String, String> common = new LinkedHashMap<>(SluiceCluster.zooKeeperHa(zooKeeper.getConnectString(),
                    "abandoned-upload", dir.resolve("ha-storage")));
            common.putAll(S3ForProcesses.settings(s3.endpoint()));
            common.put("checkpoints.dir", "s3://" + BUCKET + "/jobs");
            common.put("checkpoints.interval", "300 ms");
            try (SluiceCluster cluster = new SluiceCluster(dir, common)) {
                try {
                    run(cluster, s3, slowLink);
                } catch (Throwable t) {
                    throw new AssertionError(t + cluster.diagnostics(), t);
                }
            }
        }
    }

    private void run(SluiceCluster cluster, S3ProxyServer s3, TcpFaultProxy slowLink) throws Exception {
        SluiceProcess launched = cluster.launchJobManager(Host.MACHINE, Map.of());
        Map<String, String> victimSettings = new LinkedHashMap<>(S3ForProcesses.settings(slowLink.httpEndpoint()));
        victimSettings.put("state.backend.rocksdb.local-dir", dir.resolve("rocksdb-victim").toString());
        SluiceProcess victim = cluster.startTaskManager(Host.MACHINE, 1, victimSettings);
        SluiceProcess jobManager = cluster.awaitServing(launched);
        String jm = jobManager.restUrl();
        await().atMost(Duration.ofSeconds(60)).until(() -> Rest.isLeader(jm) && Rest.registeredSlots(jm) == 1);

        Path output = dir.resolve("counts");
        String jobId = cluster.submitExample(jm, List.of("--parallelism", "1", "-D", "state.backend=rocksdb", "-D",
                "state.backend.incremental=true"), List.of("--records", Long.toString(RECORDS), "--keys",
                Integer.toString(KEYS), "--rate", Integer.toString(RATE), "--output", output.toString()));
        await().atMost(Duration.ofSeconds(60)).until(() -> Rest.jobStatus(jm, jobId).filter("RUNNING"::equals)
                .isPresent() && Rest.completedCheckpoints(jm, jobId) >= 2);

        slowLink.setLatency(Duration.ofMillis(150));
        String shared = "jobs/" + jobId + "/shared/";
        Set<String> before = new HashSet<>(s3.keys(BUCKET, shared));
        long latestBefore = latestCompletedId(jm, jobId);
        long[] abandonedId = {-1};
        await("an object of a checkpoint after " + latestBefore).atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(5)).until(() -> {
                    long latest = latestCompletedId(jm, jobId);
                    for (String key : s3.keys(BUCKET, shared)) {
                        Matcher m = UPLOADED_FOR.matcher(key);
                        if (!before.contains(key) && m.find() && Long.parseLong(m.group(1)) > latest) {
                            abandonedId[0] = Long.parseLong(m.group(1));
                            return true;
                        }
                    }
                    return false;
                });
        victim.kill();
        long n = abandonedId[0];
        List<String> abandoned = s3.keys(BUCKET, shared + "ck" + n + "-");
        System.out.println("AbandonedUploadProcessesITCase: killed the task manager while it uploaded checkpoint " + n
                + ", after " + abandoned.size() + " object(s): " + abandoned);
        assertThat(abandoned).as("objects of checkpoint " + n + " in the bucket").isNotEmpty();

        Map<String, String> takeoverSettings = Map.of("state.backend.rocksdb.local-dir",
                dir.resolve("rocksdb-takeover").toString());
        cluster.startTaskManager(Host.MACHINE, 1, takeoverSettings);
        await("the killed upload's objects deleted").atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(100))
                .until(() -> s3.keys(BUCKET, shared + "ck" + n + "-").isEmpty());
        assertThat(Rest.jobStatus(jm, jobId)).as("deleted while the job runs, not with its end")
                .contains("RUNNING");
        long restored = Rest.restoredCheckpoint(jm, jobId);
        assertThat(restored).as("the job restored from a checkpoint before " + n + ", which never completed")
                .isBetween(latestBefore, n - 1);
        System.out.println("AbandonedUploadProcessesITCase: the job restored from checkpoint " + restored
                + "; the objects of checkpoint " + n + " were deleted while it ran (latest completed checkpoint: "
                + latestCompletedId(jm, jobId) + ")");

        await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(200))
                .until(() -> Rest.jobStatus(jm, jobId).filter("FINISHED"::equals).isPresent());
        KeyedCounts.assertExact(output, RECORDS, KEYS);
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(s3.objectCount(BUCKET, "jobs/" + jobId
                + "/")).as("objects of the finished job's checkpoints").isZero());
    }

    /** The id of the job's latest completed checkpoint (-1 for none or no answer). */
    private static long latestCompletedId(String url, String jobId) {
        Optional<Long> id = Rest.job(url, jobId).map(j -> j.path("checkpoints").path("latestId").asLong(-1));
        return id.orElse(-1L);
    }
}
