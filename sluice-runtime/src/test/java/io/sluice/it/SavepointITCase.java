package io.sluice.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.sluice.api.StreamExecutionEnvironment;
import io.sluice.api.sink.CollectingSink;
import io.sluice.api.tuple.Tuple2;
import io.sluice.checkpoint.CheckpointException;
import io.sluice.checkpoint.Savepoint;
import io.sluice.cluster.LocalCluster;
import io.sluice.config.StateBackendType;
import io.sluice.core.serialization.Serializers;
import io.sluice.examples.KeyedCountingJob;
import io.sluice.graph.JobId;
import io.sluice.it.RescaleAndMoveITCase.CountAsText;
import io.sluice.it.RescaleAndMoveITCase.CountListAndBuckets;
import io.sluice.it.RescaleAndMoveITCase.GatedSequence;
import io.sluice.job.JobResult;
import io.sluice.job.JobStatus;
import io.sluice.protocol.UnknownJobException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Savepoints on a real {@link LocalCluster} with real files: a job keeping value, list and map state per key
 * (the job of {@link RescaleAndMoveITCase}) is stopped with a savepoint once its gated source waits at a gate,
 * and the next stage is started from the savepoint, at another parallelism and in the other backend; the last
 * stage reads to the end and every key's state must be exact. Also: a savepoint taken while the job runs on
 * (RocksDB with incremental checkpoints) holds only files of its own directory; a savepoint moved elsewhere
 * restores; retention never deletes one; a failed savepoint leaves the job running; and bad input (not a
 * savepoint, a corrupt one, a changed state type, another max parallelism) is refused with nothing deleted.
 */
class SavepointITCase {
    private static final int KEYS = 16;
    /** As in {@link RescaleAndMoveITCase}, whose gated source ends there. */
    private static final long RECORDS = 60_000;
    private static LocalCluster cluster;

    @TempDir
    Path dir;

    private final List<GatedSequence> gates = new ArrayList<>();
    /** Sinks of jobs that may still run; released after each test. */
    private final List<CollectingSink<?>> sinks = new ArrayList<>();

    @BeforeAll
    static void start() {
        cluster = LocalCluster.builder().taskExecutors(2).slotsPerTaskExecutor(2).build();
    }

    @AfterAll
    static void stop() {
        cluster.close();
    }

    @AfterEach
    void releaseGates() {
        gates.forEach(GatedSequence::release);
        sinks.forEach(CollectingSink::release);
    }

    private GatedSequence gate(long limit) {
        GatedSequence source = GatedSequence.create();
        source.open(limit);
        gates.add(source);
        return source;
    }

    private StreamExecutionEnvironment env(int parallelism, StateBackendType backend, boolean incremental) {
        return StreamExecutionEnvironment.create().setParallelism(parallelism).setStateBackend(backend)
                .setIncrementalCheckpoints(incremental)
                .enableCheckpointing(Duration.ofMillis(100)).setInlineStateThreshold(0)
                .setCheckpointDir(dir.resolve("checkpoints").toString());
    }

    /** The job of {@link RescaleAndMoveITCase} over the first {@code RECORDS} values of {@code source}. */
    private static void build(StreamExecutionEnvironment env, GatedSequence source,
                              CollectingSink<Tuple2<Long, String>> sink) {
        env.fromSource(source, "numbers").setParallelism(1)
                .keyBy(new KeyedCountingJob.ModKey(KEYS))
                .map(new CountListAndBuckets()).name("count, list and buckets")
                .returns(Serializers.tuple2(Serializers.LONG, Serializers.STRING))
                .addSink(sink, "results");
    }

    private static Map<Long, String> expected() {
        Map<Long, String> out = new HashMap<>();
        for (long k = 0; k < KEYS; k++) {
            long n = 0;
            long size = 0;
            long sum = 0;
            for (long v = k; v < RECORDS; v += KEYS) {
                n++;
                if (v % 100 == 0) {
                    size++;
                    sum += v;
                }
            }
            out.put(k, n + "/" + size + "/" + sum + "/" + n);
        }
        return out;
    }

    /** Runs until the source waits at {@code gate}; returns the running job. */
    private JobId runToGate(StreamExecutionEnvironment env, String restoreFrom, long gate) throws Exception {
        CollectingSink<Tuple2<Long, String>> sink = CollectingSink.create();
        sinks.add(sink); // the job runs on after this returns
        GatedSequence source = gate(gate);
        build(env, source, sink);
        JobId job = submit(env.buildJobGraph("savepoint stage"), restoreFrom);
        await().atMost(Duration.ofSeconds(60)).until(() -> source.waitingAt() == gate
                || cluster.dispatcher().requestJobDetails(job).get().status().isGloballyTerminal());
        assertThat(cluster.dispatcher().requestJobDetails(job).get().status()).isEqualTo(JobStatus.RUNNING);
        return job;
    }

    /** A stage stopped with a savepoint once its source waits at {@code gate}: the savepoint. */
    private Savepoint stage(int parallelism, StateBackendType backend, boolean incremental, String restoreFrom,
                            long gate) throws Exception {
        JobId job = runToGate(env(parallelism, backend, incremental), restoreFrom, gate);
        Savepoint savepoint = cluster.dispatcher().triggerSavepoint(job, dir.resolve("savepoints").toString(), true)
                .get(60, TimeUnit.SECONDS);
        JobResult result = cluster.dispatcher().requestJobResult(job).get(60, TimeUnit.SECONDS);
        assertThat(result.status()).isEqualTo(JobStatus.CANCELED);
        System.out.printf("stage p%d %s: savepoint %d at %s, %d bytes%n", parallelism, backend,
                savepoint.checkpointId(), savepoint.path(), savepoint.sizeBytes());
        return savepoint;
    }

    /** The last stage: restores from {@code restoreFrom}, reads to the end; its last output per key. */
    private Map<Long, String> finish(int parallelism, StateBackendType backend, String restoreFrom) throws Exception {
        CollectingSink<Tuple2<Long, String>> sink = CollectingSink.create();
        try {
            StreamExecutionEnvironment env = env(parallelism, backend, false);
            build(env, gate(Long.MAX_VALUE), sink);
            JobId job = submit(env.buildJobGraph("last stage"), restoreFrom);
            JobResult result = cluster.dispatcher().requestJobResult(job).get(2, TimeUnit.MINUTES);
            assertThat(result.status()).as(result.failureStackTrace()).isEqualTo(JobStatus.FINISHED);
            return CollectingSink.lastValuePerKey(sink.results(), Tuple2::f0, Tuple2::f1);
        } finally {
            sink.release();
        }
    }

    @Test
    void heapToRocksDbToHeapThroughStopWithSavepointAtOtherParallelismsKeepsEveryKeysStateExact() throws Exception {
        Savepoint a = stage(2, StateBackendType.HEAP, false, null, RECORDS / 3);
        // RocksDB with incremental checkpoints running: its savepoint must still be the canonical full format.
        Savepoint b = stage(3, StateBackendType.ROCKSDB, true, a.path(), 2 * RECORDS / 3);
        assertThat(files(Path.of(URI.create(b.path())))).allSatisfy(f -> assertThat(f.getFileName().toString())
                .matches("_metadata|\\d+-\\d+\\.state"));
        assertThat(finish(1, StateBackendType.HEAP, b.path())).isEqualTo(expected());
        List<Savepoint> listed = cluster.dispatcher().listSavepoints(a.jobId()).get(10, TimeUnit.SECONDS);
        assertThat(listed).containsExactly(a);
    }

    /**
     * Stop-with-savepoint emits nothing after the savepoint: its sources stop after the barrier, so no output
     * reaches a sink beyond the state the savepoint holds, and the job restored from it goes on with each
     * key's count exactly where the stopped job's output ended (its first count per key is the stopped job's
     * last + 1). Before, the stop was a savepoint and then a cancel: the sources ran on until the cancel, and
     * the restored job emitted again counts the stopped one had emitted already.
     */
    @Test
    void stopWithSavepointEmitsNothingBeyondTheSavepoint() throws Exception {
        int keys = 8;
        CollectingSink<Tuple2<Long, Long>> stopped = CollectingSink.create();
        sinks.add(stopped);
        StreamExecutionEnvironment env = env(2, StateBackendType.HEAP, false);
        KeyedCountingJob.build(env, io.sluice.api.source.SequenceSource.unbounded(0).withRate(20_000), keys,
                io.sluice.examples.InjectedFailures.none(), stopped);
        JobId job = submit(env.buildJobGraph("stopped with a savepoint"), null);
        await().atMost(Duration.ofSeconds(60)).until(() -> stopped.count() > 5_000);
        Savepoint savepoint = cluster.dispatcher().triggerSavepoint(job, dir.resolve("savepoints").toString(), true)
                .get(60, TimeUnit.SECONDS);
        assertThat(cluster.dispatcher().requestJobResult(job).get(60, TimeUnit.SECONDS).status())
                .isEqualTo(JobStatus.CANCELED);
        Map<Long, Long> lastBeforeStop = CollectingSink.lastValuePerKey(stopped.results(), Tuple2::f0, Tuple2::f1);
        assertThat(lastBeforeStop).hasSize(keys);

        CollectingSink<Tuple2<Long, Long>> restored = CollectingSink.create();
        sinks.add(restored);
        StreamExecutionEnvironment next = env(2, StateBackendType.HEAP, false);
        KeyedCountingJob.build(next, io.sluice.api.source.SequenceSource.unbounded(0).withRate(20_000), keys,
                io.sluice.examples.InjectedFailures.none(), restored);
        JobId second = submit(next.buildJobGraph("restored from the stop"), savepoint.path());
        await().atMost(Duration.ofSeconds(60)).until(() -> restored.results().stream().map(Tuple2::f0)
                .distinct().count() == keys);
        cluster.dispatcher().cancelJob(second).get(10, TimeUnit.SECONDS);
        Map<Long, Long> firstAfterRestore = new HashMap<>();
        for (Tuple2<Long, Long> r : restored.results()) {
            firstAfterRestore.putIfAbsent(r.f0(), r.f1());
        }
        Map<Long, Long> expected = new HashMap<>();
        lastBeforeStop.forEach((k, last) -> expected.put(k, last + 1));
        assertThat(firstAfterRestore).as("each key's first count after the restore (the stopped job's last + 1)")
                .isEqualTo(expected);
    }

    @Test
    void aSavepointTakenWhileTheJobRunsOnMovedElsewhereRestoresAndRetentionNeverDeletesIt() throws Exception {
        // Retain one checkpoint, delete them on cancel: neither touches the savepoint, in the default directory.
        StreamExecutionEnvironment env = env(2, StateBackendType.ROCKSDB, true).setRetainedCheckpoints(1)
                .setRetainCheckpointsOnCancel(false);
        JobId job = runToGate(env, null, RECORDS / 2);
        Savepoint savepoint = cluster.dispatcher().triggerSavepoint(job, null, false).get(60, TimeUnit.SECONDS);
        Path savepointDir = Path.of(URI.create(savepoint.path()));
        assertThat(savepointDir.getParent()).isEqualTo(dir.resolve("checkpoints").resolve("savepoints"));
        List<Path> before = files(savepointDir);
        assertThat(before).isNotEmpty();
        long completed = details(job).checkpoints().completed();
        await().atMost(Duration.ofSeconds(30)).until(() -> details(job).checkpoints().completed() >= completed + 3);
        assertThat(details(job).status()).isEqualTo(JobStatus.RUNNING);
        cluster.dispatcher().cancelJob(job).get(10, TimeUnit.SECONDS);
        assertThat(cluster.dispatcher().requestJobResult(job).get(60, TimeUnit.SECONDS).status())
                .isEqualTo(JobStatus.CANCELED);
        await().atMost(Duration.ofSeconds(30))
                .until(() -> !Files.exists(dir.resolve("checkpoints").resolve(job.value())));
        assertThat(files(savepointDir)).as("retention and the cancel's clean-up leave the savepoint").isEqualTo(before);

        Path moved = dir.resolve("moved elsewhere").resolve("monday");
        Files.createDirectories(moved.getParent());
        Files.move(savepointDir, moved);
        assertThat(finish(3, StateBackendType.HEAP, moved.toString())).isEqualTo(expected());
    }

    @Test
    void aFailedSavepointLeavesTheJobRunningAndSaysWhy() throws Exception {
        JobId job = runToGate(env(2, StateBackendType.HEAP, false), null, RECORDS / 2);
        Path file = Files.writeString(dir.resolve("a file"), "not a directory");
        assertThatThrownBy(() -> cluster.dispatcher().triggerSavepoint(job, file.resolve("sub").toString(), true)
                .get(60, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class).cause().isInstanceOf(CheckpointException.class)
                .hasMessageContaining("Savepoint of job " + job).hasMessageContaining("could not be written");
        assertThat(details(job).status()).isEqualTo(JobStatus.RUNNING);
        assertThat(cluster.dispatcher().listSavepoints(job).get(10, TimeUnit.SECONDS)).isEmpty();
        // Checkpoints go on, and a savepoint into a good directory works afterwards.
        long completed = details(job).checkpoints().completed();
        await().atMost(Duration.ofSeconds(30)).until(() -> details(job).checkpoints().completed() > completed);
        Savepoint ok = cluster.dispatcher().triggerSavepoint(job, dir.resolve("good").toString(), true)
                .get(60, TimeUnit.SECONDS);
        assertThat(Path.of(URI.create(ok.path())).resolve("_metadata")).exists();
        assertThat(cluster.dispatcher().requestJobResult(job).get(60, TimeUnit.SECONDS).status())
                .isEqualTo(JobStatus.CANCELED);

        assertThatThrownBy(() -> cluster.dispatcher().triggerSavepoint(job, null, false).get(10, TimeUnit.SECONDS))
                .cause().isInstanceOf(IllegalStateException.class).hasMessageContaining("has ended (CANCELED)");
        JobId unknown = JobId.generate();
        assertThatThrownBy(() -> cluster.dispatcher().triggerSavepoint(unknown, null, false).get(10, TimeUnit.SECONDS))
                .cause().isInstanceOf(UnknownJobException.class);
    }

    @Test
    void notASavepointACorruptOneAChangedStateTypeAndAnotherMaxParallelismAreRefusedAndNothingIsDeleted()
            throws Exception {
        Savepoint savepoint = stage(2, StateBackendType.HEAP, false, null, RECORDS / 2);
        Path sp = Path.of(URI.create(savepoint.path()));
        List<Path> before = files(sp);
        Map<Path, byte[]> contents = new HashMap<>();
        for (Path f : before) {
            contents.put(f, Files.readAllBytes(f));
        }

        JobResult maxParallelism = runRefused(env(2, StateBackendType.ROCKSDB, false).setMaxParallelism(64), sp);
        assertThat(maxParallelism.failureMessage()).contains("max parallelism 128").contains("max parallelism 64");

        StreamExecutionEnvironment changed = env(2, StateBackendType.HEAP, false);
        changed.fromSource(gate(Long.MAX_VALUE), "numbers").setParallelism(1)
                .keyBy(new KeyedCountingJob.ModKey(KEYS))
                .map(new CountAsText()).name("count, list and buckets")
                .returns(Serializers.STRING)
                .addSink(new io.sluice.api.sink.DiscardingSink<>(), "results");
        JobResult typeChanged = cluster.dispatcher().requestJobResult(submit(changed.buildJobGraph("changed"),
                sp.toString())).get(2, TimeUnit.MINUTES);
        assertThat(typeChanged.status()).isEqualTo(JobStatus.FAILED);
        assertThat(typeChanged.failureMessage()).contains("State 'count'").contains("its type changed");

        Path notASavepoint = Files.createDirectories(dir.resolve("not a savepoint"));
        Files.writeString(notASavepoint.resolve("notes.txt"), "hello");
        JobResult none = runRefused(env(2, StateBackendType.HEAP, false), notASavepoint);
        assertThat(none.failureMessage()).contains("is not a checkpoint or savepoint");

        Path corrupt = dir.resolve("corrupt");
        Files.createDirectories(corrupt);
        for (Path f : before) {
            Files.copy(f, corrupt.resolve(f.getFileName()));
        }
        byte[] metadata = Files.readAllBytes(corrupt.resolve("_metadata"));
        metadata[metadata.length / 2] ^= 0x40;
        Files.write(corrupt.resolve("_metadata"), metadata);
        JobResult corrupted = runRefused(env(2, StateBackendType.HEAP, false), corrupt);
        assertThat(corrupted.failureMessage()).contains("corrupt").contains("checksum mismatch");

        assertThat(files(sp)).as("the savepoint is untouched").isEqualTo(before);
        for (Path f : before) {
            assertThat(Files.readAllBytes(f)).as(f.toString()).isEqualTo(contents.get(f));
        }
        assertThat(files(notASavepoint)).hasSize(1);
        assertThat(files(corrupt)).hasSize(before.size());
    }

    private JobResult runRefused(StreamExecutionEnvironment env, Path restoreFrom) throws Exception {
        CollectingSink<Tuple2<Long, String>> sink = CollectingSink.create();
        try {
            build(env, gate(Long.MAX_VALUE), sink);
            JobResult r = cluster.dispatcher().requestJobResult(submit(env.buildJobGraph("refused"),
                    restoreFrom.toString())).get(2, TimeUnit.MINUTES);
            assertThat(r.status()).isEqualTo(JobStatus.FAILED);
            return r;
        } finally {
            sink.release();
        }
    }

    private static io.sluice.protocol.JobDetails details(JobId job) throws Exception {
        return cluster.dispatcher().requestJobDetails(job).get(10, TimeUnit.SECONDS);
    }

    /** Submits once every slot is free again. */
    private static JobId submit(io.sluice.graph.JobGraph graph, String restoreFrom) throws Exception {
        await().atMost(Duration.ofSeconds(60)).until(() -> cluster.slotPool().freeSlots() == 4);
        return restoreFrom == null ? cluster.submit(graph) : cluster.submit(graph, restoreFrom);
    }

    private static List<Path> files(Path root) throws Exception {
        try (Stream<Path> walk = Files.walk(root)) {
            return walk.filter(Files::isRegularFile).sorted().toList();
        }
    }
}
