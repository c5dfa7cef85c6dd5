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
import java.util.ArrayList;
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
 * Uploads of RocksDB incremental checkpoints to S3 that a crash cut off from their acknowledgement: nobody hears of
 * those objects, the checkpoint never completes, and before 2026-12-07 they stayed in the bucket until the job's
 * checkpoints were deleted. Now the job master deletes them once a later checkpoint completed, while the job runs:
 *
 * <ol>
 *   <li>A task manager SIGKILLed after some of a checkpoint's new table files went up (the process that would delete
 *       a failed upload's files is dead, and no acknowledgement names them): the leading job master deletes them
 *       once a checkpoint completes on a second task manager.</li>
 *   <li>The leading job manager SIGKILLed while a checkpoint is pending whose upload completed: its S3 link stalls,
 *       so that it cannot write the checkpoint's metadata, the task manager uploads and acknowledges, and the
 *       process dies. The files belong to no checkpoint, and the task manager, which saw its upload through, does
 *       not delete them. The standby job manager leads, recovers the checkpoint before, and its first range of ids
 *       (above the one it recovered) covers the pending one: its log says it deleted its shared files and discarded
 *       its own directory ({@code chk-<id>/}: RocksDB's manifest and options), and they are gone while the job
 *       runs. A second job on the heap backend, with every snapshot in a state file of its own
 *       ({@code checkpoints.inline-state-threshold=0}), runs beside it on the same processes: its pending checkpoint's
 *       directory holds the whole state file ({@code <vertex>-<subtask>.state}), which the standby discards the same
 *       way.</li>
 * </ol>
 *
 * <p>Real processes: two job managers (ZooKeeper HA in this JVM), each with its S3 traffic through a
 * {@link TcpFaultProxy} of its own, and the task managers, whose S3 traffic goes through another one that delays every
 * chunk by 150 ms each way while the test waits for the first kill, so that the upload takes a second or more after
 * its first table file lands (with {@code state.backend.rocksdb.transfer-threads: 1} the files go up one at a time,
 * sorted by name: table files, then {@code CURRENT}, {@code MANIFEST}, {@code OPTIONS}); the test polls the bucket and kills as soon as an object of a checkpoint newer than the latest
 * completed one appears. The job then finishes with exact counts and leaves an empty bucket.
 */
class AbandonedUploadProcessesITCase {
    private static final String BUCKET = "checkpoints";
    private static final int KEYS = 64;
    /** 40 s of input at {@code RATE}: the kills come in the first half, the rest runs after the recoveries. */
    private static final long RECORDS = 40_000;
    private static final int RATE = 1_000;
    private static final Pattern UPLOADED_FOR = Pattern.compile("/shared/ck(\\d+)-");
    /** RocksDB's options file of a checkpoint, the last file its upload writes. */
    private static final Pattern PRIVATE_OPTIONS = Pattern.compile("/chk-(\\d+)/[^/]*OPTIONS");
    /** A heap checkpoint's state file of one subtask, its whole upload. */
    private static final Pattern HEAP_STATE_FILE = Pattern.compile("/chk-(\\d+)/\\d+-\\d+\\.state$");
    /** The job master's log line when it deletes abandoned uploads (AbandonedUploads), with the range of ids. */
    private static final Pattern SWEEP = Pattern.compile("deleting \\d+ shared state file\\(s\\) uploaded for"
            + " checkpoints (\\d+) to (\\d+), which did not complete");
    private static final Duration SLOW = Duration.ofMillis(150);

    @TempDir
    Path dir;

    @Test
    void uploadsCutOffByATaskManagerOrAJobManagerCrashAreDeletedOnceALaterCheckpointCompletes() throws Exception {
        try (TestingServer zooKeeper = TestingZooKeeper.start(dir);
             S3ProxyServer s3 = S3ProxyServer.start(BUCKET);
             TcpFaultProxy slowLink = new TcpFaultProxy("127.0.0.1", s3.port());
             TcpFaultProxy firstJobManagerLink = new TcpFaultProxy("127.0.0.1", s3.port());
             TcpFaultProxy secondJobManagerLink = new TcpFaultProxy("127.0.0.1", s3.port())) {
            Map<String, String> common = new LinkedHashMap<>(SluiceCluster.zooKeeperHa(zooKeeper.getConnectString(),
                    "abandoned-upload", dir.resolve("ha-storage")));
            common.putAll(S3ForProcesses.settings(s3.endpoint()));
            common.put("checkpoints.dir", "s3://" + BUCKET + "/jobs");
            common.put("checkpoints.interval", "300 ms");
            try (SluiceCluster cluster = new SluiceCluster(dir, common)) {
                try {
                    run(cluster, s3, slowLink, List.of(firstJobManagerLink, secondJobManagerLink));
                } catch (Throwable t) {
                    throw new AssertionError(t + cluster.diagnostics(), t);
                }
            }
        }
    }

    private void run(SluiceCluster cluster, S3ProxyServer s3, TcpFaultProxy slowLink, List<TcpFaultProxy> jmLinks)
            throws Exception {
        List<SluiceProcess> launched = new ArrayList<>();
        for (TcpFaultProxy link : jmLinks) {
            launched.add(cluster.launchJobManager(Host.MACHINE, S3ForProcesses.settings(link.httpEndpoint())));
        }
        List<SluiceProcess> jobManagers = launched.stream().map(cluster::awaitServing).toList();
        List<String> urls = jobManagers.stream().map(SluiceProcess::restUrl).toList();
        SluiceProcess victim = cluster.startTaskManager(Host.MACHINE, 2, taskManagerSettings(slowLink, "victim"));
        String jm = await("a leader").atMost(Duration.ofSeconds(60)).until(() -> Rest.leaderAmong(urls), u -> u != null);
        await().atMost(Duration.ofSeconds(60)).until(() -> Rest.registeredSlots(jm) == 2);

        Path output = dir.resolve("counts");
        String jobId = cluster.submitExample(jm, List.of("--parallelism", "1", "-D", "state.backend=rocksdb", "-D",
                "state.backend.incremental=true"), List.of("--records", Long.toString(RECORDS), "--keys",
                Integer.toString(KEYS), "--rate", Integer.toString(RATE), "--output", output.toString()));
        Path heapOutput = dir.resolve("counts-heap");
        String heapJobId = cluster.submitExample(jm, List.of("--parallelism", "1", "-D", "state.backend=heap", "-D",
                "checkpoints.inline-state-threshold=0"), List.of("--records", Long.toString(RECORDS), "--keys",
                Integer.toString(KEYS), "--rate", Integer.toString(RATE), "--output", heapOutput.toString()));
        for (String id : List.of(jobId, heapJobId)) {
            await().atMost(Duration.ofSeconds(60)).until(() -> Rest.jobStatus(jm, id).filter("RUNNING"::equals)
                    .isPresent() && Rest.completedCheckpoints(jm, id) >= 2);
        }
        String shared = "jobs/" + jobId + "/shared/";

        // 1. A task manager killed while it uploads.
        long latestBefore = latestCompletedId(jm, jobId);
        long n = awaitUploadOfPendingCheckpoint(jm, jobId, s3, shared, slowLink);
        victim.kill();
        slowLink.setLatency(Duration.ZERO);
        List<String> abandoned = s3.keys(BUCKET, shared + "ck" + n + "-");
        System.out.println("AbandonedUploadProcessesITCase: killed the task manager while it uploaded checkpoint " + n
                + ", after " + abandoned.size() + " object(s): " + abandoned);
        assertThat(abandoned).as("objects of checkpoint " + n + " in the bucket").isNotEmpty();

        cluster.startTaskManager(Host.MACHINE, 2, taskManagerSettings(slowLink, "takeover"));
        awaitDeletedWhileRunning(jm, jobId, s3, shared, n);
        long restored = Rest.restoredCheckpoint(jm, jobId);
        assertThat(restored).as("the job restored from a checkpoint before " + n + ", which never completed")
                .isBetween(latestBefore, n - 1);
        System.out.println("AbandonedUploadProcessesITCase: the job restored from checkpoint " + restored
                + "; the objects of checkpoint " + n + " were deleted while it ran (latest completed checkpoint: "
                + latestCompletedId(jm, jobId) + ")");

        // 2. The leading job manager killed while a checkpoint whose upload completed is pending.
        await().atMost(Duration.ofSeconds(60)).until(() -> Rest.jobStatus(jm, jobId).filter("RUNNING"::equals)
                .isPresent() && latestCompletedId(jm, jobId) > n);
        await().atMost(Duration.ofSeconds(60)).until(() -> Rest.jobStatus(jm, heapJobId).filter("RUNNING"::equals)
                .isPresent());
        int leading = urls.indexOf(jm);
        jmLinks.get(leading).stall(); // its metadata writes hang: no checkpoint completes from here on
        long p = awaitCompletedUploadOfPendingCheckpoint(jm, jobId, s3, PRIVATE_OPTIONS);
        long q = awaitCompletedUploadOfPendingCheckpoint(jm, heapJobId, s3, HEAP_STATE_FILE);
        long latestBeforeFailover = latestCompletedId(jm, jobId);
        SluiceProcess leader = jobManagers.get(leading);
        leader.kill();
        List<String> pendingFiles = s3.keys(BUCKET, shared + "ck" + p + "-");
        List<String> pendingOwnFiles = s3.keys(BUCKET, "jobs/" + jobId + "/chk-" + p + "/");
        String heapDirectory = "jobs/" + heapJobId + "/chk-" + q + "/";
        List<String> pendingHeapFiles = s3.keys(BUCKET, heapDirectory);
        System.out.println("AbandonedUploadProcessesITCase: killed the leading job manager while checkpoint " + p
                + ", uploaded and acknowledged, was pending (latest completed: " + latestBeforeFailover + "); its "
                + pendingFiles.size() + " shared object(s): " + pendingFiles + "; in its own directory: "
                + pendingOwnFiles + "; the heap job's checkpoint " + q + " was pending too, with " + pendingHeapFiles);
        assertThat(pendingHeapFiles).as("the heap job's state file of checkpoint " + q).isNotEmpty();
        assertThat(pendingFiles).as("shared objects of checkpoint " + p).isNotEmpty();
        assertThat(pendingOwnFiles).as("objects in checkpoint " + p + "'s own directory").isNotEmpty();
        SluiceProcess standby = jobManagers.get(1 - leading);
        String next = standby.restUrl();
        await("the standby leads").atMost(Duration.ofSeconds(60)).until(() -> Rest.isLeader(next));
        awaitDeletedWhileRunning(next, jobId, s3, shared, p);
        String ownDirectory = "jobs/" + jobId + "/chk-" + p + "/";
        await("the objects of checkpoint " + p + "'s own directory deleted").atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(100)).until(() -> s3.keys(BUCKET, ownDirectory).isEmpty());
        assertThat(Rest.jobStatus(next, jobId)).as("deleted while the job runs").contains("RUNNING");
        assertThat(standby.log()).as("the new leader's log").contains("Job " + jobId + ": discarding checkpoint(s) ["
                + p + "], which a previous leader triggered and which did not complete");
        await("the heap job's state file of checkpoint " + q + " deleted").atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(100)).until(() -> s3.keys(BUCKET, heapDirectory).isEmpty());
        assertThat(Rest.jobStatus(next, heapJobId)).as("deleted while the heap job runs").contains("RUNNING");
        assertThat(standby.log()).as("the new leader's log").contains("Job " + heapJobId + ": discarding checkpoint(s) ["
                + q + "], which a previous leader triggered and which did not complete");
        System.out.println("AbandonedUploadProcessesITCase: the new leader deleted the heap job's pending checkpoint "
                + q + " (" + pendingHeapFiles + ") while it ran");
        long restoredByStandby = Rest.restoredCheckpoint(next, jobId);
        assertThat(restoredByStandby).as("the new leader recovered a checkpoint before " + p)
                .isBetween(latestBeforeFailover, p - 1);
        List<long[]> sweeps = sweeps(standby.log());
        assertThat(sweeps).as("the new leader's deletes of abandoned uploads (its log)")
                .anySatisfy(range -> assertThat(p).isBetween(range[0], range[1]));
        System.out.println("AbandonedUploadProcessesITCase: the new leader recovered checkpoint " + restoredByStandby
                + " and deleted the objects of checkpoint " + p + " while the job ran (its log: checkpoints "
                + sweeps.stream().map(r -> r[0] + " to " + r[1]).toList() + ")");

        for (String id : List.of(jobId, heapJobId)) {
            await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(200))
                    .until(() -> Rest.jobStatus(next, id).filter("FINISHED"::equals).isPresent());
        }
        KeyedCounts.assertExact(output, RECORDS, KEYS);
        KeyedCounts.assertExact(heapOutput, RECORDS, KEYS);
        for (String id : List.of(jobId, heapJobId)) {
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(s3.objectCount(BUCKET, "jobs/" + id
                    + "/")).as("objects of the finished job " + id + "'s checkpoints").isZero());
        }
    }

    /** A task manager's settings: S3 through {@code slowLink}, its own RocksDB directory. */
    private Map<String, String> taskManagerSettings(TcpFaultProxy slowLink, String name) {
        Map<String, String> settings = new LinkedHashMap<>(S3ForProcesses.settings(slowLink.httpEndpoint()));
        settings.put("state.backend.rocksdb.local-dir", dir.resolve("rocksdb-" + name).toString());
        // One file at a time, so that OPTIONS landing means the whole upload landed (step 2 waits for that); by
        // default four go up at once, in any order (FileTransfers).
        settings.put("state.backend.rocksdb.transfer-threads", "1");
        return settings;
    }

    /**
     * Slows the task managers' S3 link and waits until an object of a checkpoint newer than the latest completed one
     * appears in the bucket; that checkpoint's id. The link stays slow: the caller kills and then speeds it up.
     */
    private static long awaitUploadOfPendingCheckpoint(String jm, String jobId, S3ProxyServer s3, String shared,
                                                       TcpFaultProxy slowLink) {
        Set<String> before = new HashSet<>(s3.keys(BUCKET, shared));
        slowLink.setLatency(SLOW);
        long[] pending = {-1};
        await("an object of a checkpoint after the latest completed one").atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(5)).until(() -> {
                    long latest = latestCompletedId(jm, jobId);
                    for (String key : s3.keys(BUCKET, shared)) {
                        Matcher m = UPLOADED_FOR.matcher(key);
                        if (!before.contains(key) && m.find() && Long.parseLong(m.group(1)) > latest) {
                            pending[0] = Long.parseLong(m.group(1));
                            return true;
                        }
                    }
                    return false;
                });
        return pending[0];
    }

    /**
     * Waits until the upload of a checkpoint newer than the latest completed one went through: its last file
     * ({@code lastFile}: RocksDB's {@code OPTIONS}, private to the checkpoint, in {@code chk-<id>/}, or the heap
     * backend's one state file there) is in the bucket, and the task acknowledges right after it; that checkpoint's
     * id.
     */
    private static long awaitCompletedUploadOfPendingCheckpoint(String jm, String jobId, S3ProxyServer s3,
                                                                Pattern lastFile) {
        long[] pending = {-1};
        await("the completed upload of a checkpoint after the latest completed one").atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(5)).until(() -> {
                    long latest = latestCompletedId(jm, jobId);
                    for (String key : s3.keys(BUCKET, "jobs/" + jobId + "/chk-")) {
                        Matcher m = lastFile.matcher(key);
                        if (m.find() && Long.parseLong(m.group(1)) > latest) {
                            pending[0] = Long.parseLong(m.group(1));
                            return true;
                        }
                    }
                    return false;
                });
        return pending[0];
    }

    /** Waits until no object of checkpoint {@code id} is left, and checks the job was still RUNNING then. */
    private static void awaitDeletedWhileRunning(String jm, String jobId, S3ProxyServer s3, String shared, long id) {
        await("the objects of checkpoint " + id + " deleted").atMost(Duration.ofSeconds(90))
                .pollInterval(Duration.ofMillis(100)).until(() -> s3.keys(BUCKET, shared + "ck" + id + "-").isEmpty());
        assertThat(Rest.jobStatus(jm, jobId)).as("deleted while the job runs, not with its end").contains("RUNNING");
    }

    /** The ranges of checkpoint ids whose abandoned uploads a job manager's log says it deleted. */
    private static List<long[]> sweeps(String log) {
        List<long[]> ranges = new ArrayList<>();
        Matcher m = SWEEP.matcher(log);
        while (m.find()) {
            ranges.add(new long[] {Long.parseLong(m.group(1)), Long.parseLong(m.group(2))});
        }
        return ranges;
    }

    /** The id of the job's latest completed checkpoint (-1 for none or no answer). */
    private static long latestCompletedId(String url, String jobId) {
        Optional<Long> id = Rest.job(url, jobId).map(j -> j.path("checkpoints").path("latestId").asLong(-1));
        return id.orElse(-1L);
    }
}
