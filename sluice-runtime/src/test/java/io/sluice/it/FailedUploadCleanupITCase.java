package io.sluice.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.sluice.api.StreamExecutionEnvironment;
import io.sluice.api.sink.CollectingSink;
import io.sluice.api.tuple.Tuple2;
import io.sluice.cluster.LocalCluster;
import io.sluice.config.Configuration;
import io.sluice.config.StateBackendType;
import io.sluice.core.serialization.Serializers;
import io.sluice.examples.KeyedCountingJob;
import io.sluice.graph.JobId;
import io.sluice.job.JobResult;
import io.sluice.job.JobStatus;
import io.sluice.protocol.JobDetails;
import io.sluice.storage.BlobContent;
import io.sluice.storage.BlobStore;
import io.sluice.storage.ForwardingBlobStore;
import io.sluice.storage.StorageException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An upload of a RocksDB incremental checkpoint that storage refuses part-way, after the subtask uploaded new table
 * files for it: those files are deleted by the subtask, the checkpoint is declined, and the job runs on to exact
 * results. Nobody else could delete the refused upload's files: the job master aborts the checkpoint knowing only
 * the acknowledgements it received, the files have names no other upload uses, in the job's {@code shared/}
 * directory, and the backend refers only to files of confirmed checkpoints. Before, they stayed until the job's
 * checkpoints were deleted (with checkpoints retained, for ever).
 *
 * <p>And an upload that a stalled write holds past its job's cancel, then completes: its files are gone too (deleted
 * by the subtask; the job master, still running in this JVM, would delete a late acknowledgement's files as well).
 * And an upload that never ends, as one whose process was killed: the job master deletes what it had uploaded once a
 * later checkpoint completed ({@code AbandonedUploads}).
 */
class FailedUploadCleanupITCase {
    private static final int KEYS = 2_000;

    @TempDir
    Path dir;

    private LocalCluster cluster;
    private CollectingSink<Tuple2<Long, Long>> sink;
    private String gate;

    /**
     * Catches, once armed, the first upload of a checkpoint's file that {@code trigger} names and that follows new
     * table files of the same subtask (RocksDB's files go up sorted by name: table files, {@code CURRENT},
     * {@code MANIFEST}, {@code OPTIONS}), remembers those table files and hands that one write to {@code write}
     * instead of storage.
     */
    private static final class InterceptOnce {
        /** The caught write of {@code path} to {@code store}, after {@code newTableFiles}. */
        interface Write {
            void write(BlobStore store, String path, BlobContent content, List<String> newTableFiles);
        }

        volatile boolean armed;
        private final java.util.function.Predicate<String> trigger;
        private final Write write;
        /** Every shared file uploaded so far. */
        private final List<String> shared = new ArrayList<>();
        private List<String> newTableFiles;

        InterceptOnce(java.util.function.Predicate<String> trigger, Write write) {
            this.trigger = trigger;
            this.write = write;
        }

        /** The new table files of the caught write's checkpoint and subtask uploaded before it; {@code null} before. */
        synchronized List<String> newTableFiles() {
            return newTableFiles;
        }

        BlobStore decorate(BlobStore store) {
            return new ForwardingBlobStore(store) {
                @Override
                public void put(String path, BlobContent content) {
                    java.util.regex.Matcher own = CHECKPOINT_FILE.matcher(path);
                    if (own.find() && trigger.test(path)) {
                        // Files of one snapshot go up several at a time: its shared files are those named after its
                        // checkpoint and subtask (shared/ck<id>-<vertex>-<subtask>-...), in whatever order they went.
                        String prefix = "/shared/ck" + own.group(1) + "-" + own.group(2) + "-";
                        List<String> caught = null;
                        synchronized (InterceptOnce.this) {
                            List<String> ofThisSnapshot = shared.stream().filter(p -> p.contains(prefix)).toList();
                            if (armed && newTableFiles == null && !ofThisSnapshot.isEmpty()) {
                                newTableFiles = ofThisSnapshot;
                                caught = newTableFiles;
                            }
                        }
                        if (caught != null) {
                            write.write(store, path, content, caught);
                            return;
                        }
                    }
                    super.put(path, content);
                    if (path.contains("/shared/")) {
                        synchronized (InterceptOnce.this) {
                            shared.add(path);
                        }
                    }
                }
            };
        }
    }

    /** A checkpoint's own file of a subtask: {@code <job>/chk-<id>/<vertex>-<subtask>-<name>}. */
    private static final java.util.regex.Pattern CHECKPOINT_FILE = java.util.regex.Pattern.compile(
            "/chk-(\\d+)/(\\d+-\\d+)-");

    /** Refuses a checkpoint's {@code CURRENT} file once at least one of its new table files went up. */
    private static InterceptOnce refusingCurrent() {
        return new InterceptOnce(path -> path.endsWith("-CURRENT"), (store, path, content, newTableFiles) -> {
            throw new StorageException("Checkpoint storage refused " + path + " (injected by the test, after "
                    + newTableFiles.size() + " new table files)");
        });
    }

    /**
     * Holds a checkpoint's {@code OPTIONS} file, once at least one of its new table files went up, until released
     * (the others may still go up meanwhile: a snapshot uploads several files at a time); meanwhile it answers no interrupt, as a write blocked on a stalled store's socket does not, and then
     * completes the write.
     */
    private static final class Hold implements InterceptOnce.Write {
        final CountDownLatch holding = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        final CountDownLatch written = new CountDownLatch(1);
        volatile String path;

        @Override
        public void write(BlobStore store, String path, BlobContent content, List<String> newTableFiles) {
            byte[] bytes = readAll(content); // the task's end may delete its local snapshot
            this.path = path;
            holding.countDown();
            boolean interrupted = awaitAnsweringNoInterrupt(release);
            store.put(path, BlobContent.of(bytes));
            written.countDown();
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }

        private static byte[] readAll(BlobContent content) {
            try (java.io.InputStream in = content.open(0, content.length())) {
                return in.readAllBytes();
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }

        /** Waits for {@code latch} whatever interrupts come; whether one came. */
        private static boolean awaitAnsweringNoInterrupt(CountDownLatch latch) {
            boolean interrupted = false;
            while (true) {
                try {
                    if (latch.await(60, TimeUnit.SECONDS)) {
                        return interrupted;
                    }
                    throw new IllegalStateException("the test never released the held upload");
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        }
    }

    @AfterEach
    void stop() {
        if (cluster != null) {
            cluster.close();
        }
        if (sink != null) {
            sink.release();
        }
        if (gate != null) {
            IncrementalCheckpointRecoveryITCase.OPEN.remove(gate);
        }
    }

    @Test
    void theTableFilesOfAnUploadRefusedPartWayAreDeletedAndTheJobRunsOnToExactResults() throws Exception {
        InterceptOnce refuse = refusingCurrent();
        long records = 20_000;
        JobId id = start(refuse, "failed upload", countingJob(records));
        Path checkpoints = dir.resolve("checkpoints");

        await().atMost(Duration.ofSeconds(60)).until(() -> sink.results().size() >= KEYS);
        refuse.armed = true;
        await().atMost(Duration.ofSeconds(60)).until(() -> refuse.newTableFiles() != null);
        List<String> orphaned = refuse.newTableFiles();
        long completedThen = details(id).checkpoints().completed();
        await().atMost(Duration.ofSeconds(60)).until(() -> details(id).checkpoints().completed() >= completedThen + 2);

        JobDetails details = details(id);
        System.out.printf("refused after %d new table files; %d checkpoints completed, %d failed%n", orphaned.size(),
                details.checkpoints().completed(), details.checkpoints().failed());
        assertThat(details.status()).as("a refused upload fails a checkpoint, not the job").isEqualTo(JobStatus.RUNNING);
        assertThat(details.checkpoints().failed()).isPositive();
        assertThat(orphaned).as("the table files uploaded for the refused checkpoint").isNotEmpty();
        // Deleted on the upload's I/O thread right after its decline: long done, but not ordered with the checkpoints.
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(orphaned)
                .allSatisfy(path -> assertThat(checkpoints.resolve(path)).as("deleted by the subtask").doesNotExist()));

        IncrementalCheckpointRecoveryITCase.OPEN.put(gate, true);
        JobResult result = cluster.dispatcher().requestJobResult(id).get(120, TimeUnit.SECONDS);
        assertThat(result.status()).isEqualTo(JobStatus.FINISHED);
        Map<Long, Long> last = CollectingSink.lastValuePerKey(sink.results(), Tuple2::f0, Tuple2::f1);
        assertThat(last).isEqualTo(KeyedCountingJob.expectedCounts(records, KEYS));
    }

    @Test
    void theFilesOfAnUploadThatCompletesOnlyAfterItsJobWasCancelledAreDeleted() throws Exception {
        Hold hold = new Hold();
        InterceptOnce intercept = new InterceptOnce(path -> path.matches(".*-OPTIONS-\\d+"), hold);
        JobId id = start(intercept, "late upload", countingJob(20_000));
        Path checkpoints = dir.resolve("checkpoints");

        await().atMost(Duration.ofSeconds(60)).until(() -> sink.results().size() >= KEYS);
        intercept.armed = true;
        assertThat(hold.holding.await(60, TimeUnit.SECONDS)).as("an upload after new table files was held").isTrue();
        cluster.dispatcher().cancelJob(id).get(10, TimeUnit.SECONDS);
        JobResult result = cluster.dispatcher().requestJobResult(id).get(60, TimeUnit.SECONDS);
        assertThat(result.status()).as("cancelled while the upload is held").isEqualTo(JobStatus.CANCELED);
        List<String> held = new ArrayList<>(intercept.newTableFiles());
        held.add(hold.path);
        assertThat(held).as("the held upload's new table files and its OPTIONS file").hasSizeGreaterThan(1);
        assertThat(checkpoints.resolve(held.get(0))).as("uploaded before the hold").exists();

        hold.release.countDown();
        assertThat(hold.written.await(60, TimeUnit.SECONDS)).as("the held write completed").isTrue();
        System.out.printf("held after %d new table files; the job was %s when the upload completed%n",
                held.size() - 1, result.status());
        // Deleted by the subtask right after the write, instead of acknowledged. (Without that, this job manager would
        // delete them too, as a late acknowledgement, since its process still runs: the subtask's delete is what
        // covers an acknowledgement that reaches no job master, SubtaskCheckpointerTest.)
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(held)
                .allSatisfy(path -> assertThat(checkpoints.resolve(path)).as("deleted by the subtask").doesNotExist()));
    }

    /**
     * An upload that never ends and never cleans up, as one whose task manager was killed: its held write answers no
     * interrupt and the test releases it only at the end. The checkpoint times out, the next ones complete, and the
     * job master deletes the new table files the upload had put into {@code shared/}: no acknowledgement named
     * them, and the subtask that would delete them is stuck. Before, they stayed until the job's checkpoints were
     * deleted.
     */
    @Test
    void theTableFilesOfAnUploadThatNeverEndsAreDeletedOnceALaterCheckpointCompletes() throws Exception {
        Hold hold = new Hold();
        InterceptOnce intercept = new InterceptOnce(path -> path.matches(".*-OPTIONS-\\d+"), hold);
        long records = 20_000;
        JobId id = start(intercept, "abandoned upload",
                countingJob(records).setCheckpointTimeout(Duration.ofSeconds(2)));
        Path checkpoints = dir.resolve("checkpoints");

        await().atMost(Duration.ofSeconds(60)).until(() -> sink.results().size() >= KEYS);
        intercept.armed = true;
        assertThat(hold.holding.await(60, TimeUnit.SECONDS)).as("an upload after new table files was held").isTrue();
        List<String> abandoned = intercept.newTableFiles();
        assertThat(abandoned).as("the held upload's new table files").isNotEmpty()
                .allSatisfy(path -> assertThat(path).contains("/shared/ck"));
        assertThat(checkpoints.resolve(abandoned.get(0))).as("uploaded before the hold").exists();
        long completedThen = details(id).checkpoints().completed();

        // The held checkpoint times out after 2 s; the next one to complete lets the job master delete the files.
        // (Well before the hold gives up after 60 s, failing the upload, which then deletes its files itself.)
        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> assertThat(abandoned)
                .allSatisfy(path -> assertThat(checkpoints.resolve(path)).as("deleted by the job master").doesNotExist()));
        JobDetails details = details(id);
        System.out.printf("held after %d new table files; %d checkpoints completed (%d when held), %d failed%n",
                abandoned.size(), details.checkpoints().completed(), completedThen, details.checkpoints().failed());
        assertThat(details.status()).isEqualTo(JobStatus.RUNNING);
        assertThat(details.checkpoints().completed()).as("a later checkpoint completed").isGreaterThan(completedThen);
        assertThat(hold.written.getCount()).as("the held write is still held").isEqualTo(1);

        hold.release.countDown();
        IncrementalCheckpointRecoveryITCase.OPEN.put(gate, true);
        JobResult result = cluster.dispatcher().requestJobResult(id).get(120, TimeUnit.SECONDS);
        assertThat(result.status()).isEqualTo(JobStatus.FINISHED);
        Map<Long, Long> last = CollectingSink.lastValuePerKey(sink.results(), Tuple2::f0, Tuple2::f1);
        assertThat(last).isEqualTo(KeyedCountingJob.expectedCounts(records, KEYS));
    }

    private Configuration rocksDbWithSmallFiles() {
        return new Configuration()
                .setString("state.backend.rocksdb.compaction.target-file-size", "16 kb")
                .setString("state.backend.rocksdb.compaction.level0-files", "4")
                .setString("state.backend.rocksdb.local-dir", dir.resolve("rocksdb").toString());
    }

    /**
     * Starts a cluster whose checkpoint storage {@code intercept} decorates, opens the job's gate (closed) and
     * submits {@code job} (a {@link #countingJob}) as {@code name}; its id.
     */
    private JobId start(InterceptOnce intercept, String name, StreamExecutionEnvironment job) throws Exception {
        cluster = LocalCluster.builder().haDirectory(dir.resolve("ha")).configuration(rocksDbWithSmallFiles())
                .blobStoreDecorator(intercept::decorate).build();
        IncrementalCheckpointRecoveryITCase.OPEN.put(gate, false);
        return cluster.submit(job.buildJobGraph(name));
    }

    /**
     * Counts per key on RocksDB with incremental checkpoints every 50 ms into {@code dir/checkpoints}; its source
     * holds at a new gate (closed by {@link #start}) until the test opens it.
     */
    private StreamExecutionEnvironment countingJob(long records) {
        sink = CollectingSink.create();
        gate = "upload test " + java.util.UUID.randomUUID();
        Path checkpoints = dir.resolve("checkpoints");
        StreamExecutionEnvironment env = StreamExecutionEnvironment.create().setParallelism(1)
                .setStateBackend(StateBackendType.ROCKSDB).setIncrementalCheckpoints(true)
                .enableCheckpointing(Duration.ofMillis(50)).setInlineStateThreshold(0)
                .setCheckpointDir(checkpoints.toString());
        env.fromSource(new IncrementalCheckpointRecoveryITCase.HeldSource(gate, records, KEYS, Duration.ofMillis(2)),
                        "numbers")
                .keyBy(new KeyedCountingJob.ModKey(KEYS))
                .map(new IncrementalCheckpointRecoveryITCase.CountWithPadding(KEYS)).name("count per key")
                .returns(Serializers.tuple2(Serializers.LONG, Serializers.LONG))
                .addSink(sink, "results");
        return env;
    }

    private JobDetails details(JobId id) throws Exception {
        return cluster.dispatcher().requestJobDetails(id).get(5, TimeUnit.SECONDS);
    }
}
