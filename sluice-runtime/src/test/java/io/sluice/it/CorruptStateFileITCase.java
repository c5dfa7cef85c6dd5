package io.sluice.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.sluice.api.StreamExecutionEnvironment;
import io.sluice.api.tuple.Tuple2;
import io.sluice.api.sink.CollectingSink;
import io.sluice.api.source.SequenceSource;
import io.sluice.cluster.LocalCluster;
import io.sluice.examples.InjectedFailures;
import io.sluice.examples.KeyedCountingJob;
import io.sluice.graph.JobId;
import io.sluice.protocol.JobDetails;
import io.sluice.job.JobResult;
import io.sluice.job.JobStatus;
import io.sluice.storage.BlobStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A corrupt {@code .state} file in the latest checkpoint, found when a new job manager restores a
 * job (as after a process restart), makes the job fall back to the previous checkpoint — with
 * exact final counts and a warning naming the checkpoint, the subtask and the file — instead of
 * restoring wrong data or spending the restart budget on the same checkpoint. Default settings
 * (inline-state threshold, retained checkpoints, restart strategy); the state is large enough to
 * go to state files. The same on a task failover, where the job master holds the checkpoint's
 * metadata in memory and only the tasks read state files. When every retained checkpoint's state
 * files are corrupt the job waits (not FAILED, graph and checkpoints kept, the error in its status)
 * and resumes by itself once the files are repaired.
 */
class CorruptStateFileITCase {
    /** Enough keys that each subtask's snapshot is above the default inline threshold of 20 KiB. */
    private static final int KEYS = 6_000;
    /**
     * 3 s of input at the source's 40,000 a second: every key has state after 0.15 s, the checkpoints
     * come every 100 ms, and the injected failure (at half) and the first cluster's stop (after three
     * checkpoints) come while the job runs.
     */
    private static final long RECORDS = 120_000;

    @TempDir
    Path dir;

    @Test
    void aFlippedBitInTheLatestCheckpointFallsBackToThePreviousOneAfterAJobManagerRestart() throws Exception {
        runCorruptingTheLatestCheckpoint(file -> {
            byte[] copy = file.clone();
            copy[copy.length / 2] ^= 0x04;
            return copy;
        });
    }

    @Test
    void garbageInAStateFileOfTheLatestCheckpointFallsBackToThePreviousOne() throws Exception {
        runCorruptingTheLatestCheckpoint(file -> "garbage, not a state file".repeat(200).getBytes());
    }

    @Test
    void aCorruptStateFileFoundOnATaskFailoverFallsBackToThePreviousCheckpoint() throws Exception {
        CollectingSink<Tuple2<Long, Long>> sink = CollectingSink.create();
        InjectedFailures failure = InjectedFailures.at(List.of(RECORDS / 2));
        AtomicReference<String> corrupted = new AtomicReference<>();
        try (LocalCluster cluster = LocalCluster.builder()
                .blobStoreDecorator(store -> new CorruptingFirstStateRead(store, corrupted)).build()) {
            StreamExecutionEnvironment env = StreamExecutionEnvironment.create().setParallelism(2)
                    .enableCheckpointing(Duration.ofMillis(100)).setCheckpointDir(dir.resolve("checkpoints").toString());
            KeyedCountingJob.build(env, SequenceSource.bounded(0, RECORDS - 1).withRate(40_000), KEYS, failure, sink);
            JobId id = cluster.submit(env.buildJobGraph("corrupt state file on task failover"));

            JobResult result = cluster.dispatcher().requestJobResult(id).get(90, TimeUnit.SECONDS);
            assertThat(result.status()).as("%s", result.failureStackTrace()).isEqualTo(JobStatus.FINISHED);
            assertThat(failure.thrown()).isEqualTo(1);
            assertThat(corrupted.get()).as("a state file was read, and corrupted, on the restore").isNotNull();
            Map<Long, Long> last = CollectingSink.lastValuePerKey(sink.results(), Tuple2::f0, Tuple2::f1);
            assertThat(last).isEqualTo(KeyedCountingJob.expectedCounts(RECORDS, KEYS));
            JobDetails details = cluster.dispatcher().requestJobDetails(id).get(5, TimeUnit.SECONDS);
            long corruptId = checkpointId(Path.of(corrupted.get()).getParent());
            assertThat(details.failureMessage()).contains("Checkpoint " + corruptId + " is unusable")
                    .contains(corrupted.get()).containsPattern("restoring from checkpoint \\d+ instead");
            assertThat(details.restarts()).as("the injected failure, then the fallback").isEqualTo(2);
        } finally {
            failure.release();
            sink.release();
        }
    }

    @Test
    void whenEveryRetainedCheckpointIsCorruptTheJobWaitsNamingCheckpointSubtaskAndFileAndResumesOnceRepaired()
            throws Exception {
        CollectingSink<Tuple2<Long, Long>> sink = CollectingSink.create();
        try {
            JobId id = runFirstJobManagerUntilCheckpoints(sink);
            List<Path> checkpoints = completedCheckpoints(id);
            Map<Path, byte[]> intact = new java.util.HashMap<>();
            for (Path chk : checkpoints) {
                try (Stream<Path> files = Files.list(chk)) {
                    for (Path f : files.filter(p -> p.toString().endsWith(".state")).toList()) {
                        intact.put(f, Files.readAllBytes(f));
                        Files.write(f, "garbage".getBytes());
                    }
                }
            }
            assertThat(intact).as("state files (the state is above the inline threshold)").isNotEmpty();
            try (LocalCluster second = LocalCluster.builder().haDirectory(dir.resolve("ha")).build()) {
                AtomicReference<JobDetails> waiting = new AtomicReference<>();
                await().atMost(Duration.ofSeconds(60)).until(() -> {
                    JobDetails d = second.dispatcher().requestJobDetails(id).get(5, TimeUnit.SECONDS);
                    waiting.set(d);
                    return d.failureMessage() != null && d.failureMessage().contains("Waiting: no retained checkpoint");
                });
                long oldest = checkpointId(checkpoints.get(0));
                assertThat(waiting.get().status()).as("not ended").isEqualTo(JobStatus.RESTARTING);
                assertThat(waiting.get().failureMessage())
                        .contains("checkpoint " + oldest + " is unusable")
                        .containsPattern("subtask \\d")
                        .contains("chk-" + oldest + "/")
                        .contains(".state")
                        .contains("put back an intact copy")
                        .contains("resumes by itself")
                        .contains("checkpoints.restore-from");
                assertThat(second.dispatcher().requestJobResult(id)).as("no result while waiting").isNotDone();
                assertThat(dir.resolve("ha").resolve("jobgraphs").resolve(id.value())).as("graph kept").exists();
                assertThat(completedCheckpoints(id)).as("checkpoints kept").isEqualTo(checkpoints);

                for (Map.Entry<Path, byte[]> e : intact.entrySet()) {
                    Files.write(e.getKey(), e.getValue()); // repaired, e.g. from a backup
                }
                JobResult result = second.dispatcher().requestJobResult(id).get(120, TimeUnit.SECONDS);
                assertThat(result.status()).as("%s", result.failureStackTrace()).isEqualTo(JobStatus.FINISHED);
                Map<Long, Long> last = CollectingSink.lastValuePerKey(sink.results(), Tuple2::f0, Tuple2::f1);
                assertThat(last).isEqualTo(KeyedCountingJob.expectedCounts(RECORDS, KEYS));
            }
        } finally {
            sink.release();
        }
    }

    private void runCorruptingTheLatestCheckpoint(UnaryOperator<byte[]> corrupt) throws Exception {
        CollectingSink<Tuple2<Long, Long>> sink = CollectingSink.create();
        try {
            JobId id = runFirstJobManagerUntilCheckpoints(sink);
            List<Path> checkpoints = completedCheckpoints(id);
            assertThat(checkpoints).as("retained checkpoints").hasSizeGreaterThanOrEqualTo(2);
            Path latest = checkpoints.get(checkpoints.size() - 1);
            Path stateFile;
            try (Stream<Path> files = Files.list(latest)) {
                stateFile = files.filter(p -> p.toString().endsWith(".state")).sorted().findFirst().orElseThrow(
                        () -> new AssertionError("no state file in " + latest + ": the state is inline"));
            }
            Files.write(stateFile, corrupt.apply(Files.readAllBytes(stateFile)));
            long latestId = checkpointId(latest);

            try (LocalCluster second = LocalCluster.builder().haDirectory(dir.resolve("ha")).build()) {
                JobResult result = second.dispatcher().requestJobResult(id).get(90, TimeUnit.SECONDS);
                assertThat(result.status()).as("%s", result.failureStackTrace()).isEqualTo(JobStatus.FINISHED);
                Map<Long, Long> last = CollectingSink.lastValuePerKey(sink.results(), Tuple2::f0, Tuple2::f1);
                assertThat(last).isEqualTo(KeyedCountingJob.expectedCounts(RECORDS, KEYS));

                JobDetails details = second.dispatcher().requestJobDetails(id).get(5, TimeUnit.SECONDS);
                String stateFileName = stateFile.getFileName().toString();
                assertThat(details.failureMessage())
                        .contains("Checkpoint " + latestId + " is unusable")
                        .contains("subtask " + stateFileName.substring(stateFileName.indexOf('-') + 1,
                                stateFileName.indexOf('.')))
                        .contains("chk-" + latestId + "/" + stateFileName)
                        .containsPattern("restoring from checkpoint \\d+ instead");
                assertThat(details.restarts()).as("the fallback is the only restart").isEqualTo(1);
            }
        } finally {
            sink.release();
        }
    }

    /** Runs the job on a first cluster until it has completed checkpoints, then stops that cluster. */
    private JobId runFirstJobManagerUntilCheckpoints(CollectingSink<Tuple2<Long, Long>> sink) throws Exception {
        try (LocalCluster first = LocalCluster.builder().haDirectory(dir.resolve("ha")).build()) {
            StreamExecutionEnvironment env = StreamExecutionEnvironment.create().setParallelism(2)
                    .enableCheckpointing(Duration.ofMillis(100)).setCheckpointDir(dir.resolve("checkpoints").toString());
            KeyedCountingJob.build(env, SequenceSource.bounded(0, RECORDS - 1).withRate(40_000), KEYS,
                    InjectedFailures.none(), sink);
            JobId id = first.submit(env.buildJobGraph("corrupt state file"));
            await().atMost(Duration.ofSeconds(30)).until(() ->
                    first.dispatcher().requestJobDetails(id).get(5, TimeUnit.SECONDS).checkpoints().completed() >= 3);
            return id;
        }
    }

    /**
     * The retained checkpoints: those the HA services hold a pointer to (embedded HA: a file named by the
     * id under {@code ha/checkpoints/<job>}). A {@code chk-N} with {@code _metadata} but no pointer is not
     * one: its pointer write was cut off when the first cluster closed, and its files are kept because
     * the write may have landed (it did not), so a restore never reads it.
     */
    private List<Path> completedCheckpoints(JobId id) throws IOException {
        java.util.Set<Long> pointed;
        try (Stream<Path> pointers = Files.list(dir.resolve("ha").resolve("checkpoints").resolve(id.value()))) {
            pointed = pointers.map(p -> p.getFileName().toString()).filter(n -> n.matches("\\d+"))
                    .map(Long::parseLong).collect(java.util.stream.Collectors.toSet());
        }
        try (Stream<Path> dirs = Files.list(dir.resolve("checkpoints").resolve(id.value()))) {
            return dirs.filter(d -> Files.exists(d.resolve("_metadata")) && pointed.contains(checkpointId(d)))
                    .sorted(Comparator.comparingLong(CorruptStateFileITCase::checkpointId)).toList();
        }
    }

    /** Returns the first state file read from it with one bit flipped (checkpoint storage going bad). */
    private static final class CorruptingFirstStateRead extends io.sluice.storage.ForwardingBlobStore {
        private final AtomicReference<String> corrupted;

        CorruptingFirstStateRead(BlobStore delegate, AtomicReference<String> corrupted) {
            super(delegate);
            this.corrupted = corrupted;
        }

        @Override
        public byte[] get(String path) {
            byte[] data = delegate.get(path);
            if (path.endsWith(".state") && corrupted.compareAndSet(null, path)) {
                data = data.clone();
                data[data.length / 2] ^= 0x10;
            }
            return data;
        }

        @Override
        public java.io.InputStream openRead(String path) {
            if (path.endsWith(".state")) {
                return new java.io.ByteArrayInputStream(get(path)); // a state file read as a stream: corrupted alike
            }
            return delegate.openRead(path);
        }
    }

    private static long checkpointId(Path chk) {
        return Long.parseLong(chk.getFileName().toString().substring("chk-".length()));
    }
}
