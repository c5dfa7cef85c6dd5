package io.sluice.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.sluice.api.StreamExecutionEnvironment;
import io.sluice.api.functions.MapFunction;
import io.sluice.api.functions.RichFunction;
import io.sluice.api.functions.RuntimeContext;
import io.sluice.api.sink.CollectingSink;
import io.sluice.api.state.ListState;
import io.sluice.api.state.ListStateDescriptor;
import io.sluice.api.state.MapState;
import io.sluice.api.state.MapStateDescriptor;
import io.sluice.api.state.ValueState;
import io.sluice.api.state.ValueStateDescriptor;
import io.sluice.api.tuple.Tuple2;
import io.sluice.cluster.LocalCluster;
import io.sluice.config.StateBackendType;
import io.sluice.core.serialization.Serializers;
import io.sluice.examples.KeyedCountingJob;
import io.sluice.graph.JobId;
import io.sluice.job.JobResult;
import io.sluice.job.JobStatus;
import io.sluice.protocol.JobDetails;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Keyed state restored at other parallelisms and in the other backend, from checkpoints anywhere:
 * a job keeping value, list and map state per key runs in stages, each cancelled after a completed
 * checkpoint and the next restored from it ({@code checkpoints.restore-from latest:<job>}) at
 * parallelism 2 -> 3 -> 1 -> 4 (each stage reads a quarter more of the input: its source waits at a
 * gate, so a slow machine cannot make a stage finish its input before it is cancelled), on the heap, in RocksDB, or alternating between them; the last
 * stage reads to the end and every key's value, list and map must be exact. The source keeps
 * parallelism 1 (its position is one subtask's). And what is refused, clearly and without deleting
 * anything: another max parallelism, a state whose type changed, a directory that holds no
 * checkpoint; a corrupt state file makes the job wait, naming the file.
 */
class RescaleAndMoveITCase {
    private static final int KEYS = 16;
    private static final long RECORDS = 60_000;
    private static LocalCluster cluster;

    /**
     * The directories of every test, deleted after {@link #stop()} closed the cluster: an ended job's checkpoint
     * files may still be written or discarded on the cluster's I/O threads after its result is in, so a directory
     * per test that JUnit deletes right after the test failed now and then ("Failed to delete temp directory ...
     * checkpoints", DirectoryNotEmptyException: an entry appeared while it was being deleted).
     */
    @TempDir
    static Path root;

    /** This test's directory, under {@link #root}. */
    Path dir;

    @BeforeAll
    static void start() {
        cluster = LocalCluster.builder().taskExecutors(2).slotsPerTaskExecutor(2).build();
    }

    @org.junit.jupiter.api.BeforeEach
    void newDirectory() throws java.io.IOException {
        dir = Files.createTempDirectory(root, "test-");
    }

    @AfterAll
    static void stop() {
        cluster.close();
    }

    private final List<GatedSequence> openGates = new ArrayList<>();

    /** A gated source with the gate open: it reads to the end. */
    private GatedSequence openGate() {
        GatedSequence source = GatedSequence.create();
        source.open(Long.MAX_VALUE);
        openGates.add(source);
        return source;
    }

    @org.junit.jupiter.api.AfterEach
    void releaseGates() {
        openGates.forEach(GatedSequence::release);
    }

    /** Per key: a count (value state), the values divisible by 100 (list state), counts per thousand (map state). */
    static final class CountListAndBuckets implements MapFunction<Long, Tuple2<Long, String>>, RichFunction {
        private transient ValueState<Long> count;
        private transient ListState<Long> hundreds;
        private transient MapState<Long, Long> buckets;

        @Override
        public void open(RuntimeContext context) {
            count = context.getState(new ValueStateDescriptor<>("count", Serializers.LONG));
            hundreds = context.getListState(new ListStateDescriptor<>("hundreds", Serializers.LONG));
            buckets = context.getMapState(new MapStateDescriptor<>("buckets", Serializers.LONG, Serializers.LONG));
        }

        @Override
        public Tuple2<Long, String> map(Long value) {
            Long c = count.value();
            long n = c == null ? 1 : c + 1;
            count.update(n);
            if (value % 100 == 0) {
                hundreds.add(value);
            }
            Long b = buckets.get(value / 1000);
            buckets.put(value / 1000, b == null ? 1 : b + 1);
            long listSize = 0;
            long listSum = 0;
            for (long v : hundreds.get()) {
                listSize++;
                listSum += v;
            }
            long bucketTotal = 0;
            for (long v : buckets.values()) {
                bucketTotal += v;
            }
            return new Tuple2<>(value % KEYS, n + "/" + listSize + "/" + listSum + "/" + bucketTotal);
        }
    }

    /**
     * The values 0..RECORDS-1 (one subtask), but only up to a gate the test opens stage by stage: at the
     * gate the reader emits nothing and the job keeps running (and checkpointing) until it is cancelled,
     * however slow the machine. The gate is shared by every job of a test through its id (static).
     */
    static final class GatedSequence implements io.sluice.api.source.Source<Long> {
        static final Map<String, java.util.concurrent.atomic.AtomicLong[]> GATES = new java.util.concurrent.ConcurrentHashMap<>();
        private final String id;

        GatedSequence(String id) {
            this.id = id;
        }

        static GatedSequence create() {
            String id = java.util.UUID.randomUUID().toString();
            GATES.put(id, new java.util.concurrent.atomic.AtomicLong[] {
                    new java.util.concurrent.atomic.AtomicLong(), new java.util.concurrent.atomic.AtomicLong(-1)});
            return new GatedSequence(id);
        }

        /** Lets the reader emit the values below {@code limit}. */
        void open(long limit) {
            GATES.get(id)[0].set(limit);
        }

        /** The reader's position when it last found the gate closed; -1 before. */
        long waitingAt() {
            return GATES.get(id)[1].get();
        }

        void release() {
            GATES.remove(id);
        }

        @Override
        public boolean isBounded() {
            return true;
        }

        @Override
        public io.sluice.api.source.SourceReader<Long> createReader(int subtaskIndex, int parallelism) {
            java.util.concurrent.atomic.AtomicLong[] gate = GATES.get(id);
            if (gate == null) {
                throw new IllegalStateException("The gate of " + id + " was released: its test ended");
            }
            return new io.sluice.api.source.SourceReader<>() {
                private long position;

                @Override
                public int emit(io.sluice.api.functions.Collector<Long> out, int maxRecords) {
                    if (position >= RECORDS) {
                        return END_OF_INPUT;
                    }
                    long allowed = Math.min(gate[0].get(), RECORDS) - position;
                    if (allowed <= 0) {
                        gate[1].set(position);
                        java.util.concurrent.locks.LockSupport.parkNanos(1_000_000); // closed: look again in 1 ms
                        return 0;
                    }
                    int n = (int) Math.min(allowed, maxRecords);
                    for (int i = 0; i < n; i++) {
                        out.collect(position++);
                    }
                    return n;
                }

                @Override
                public byte[] snapshotPosition() {
                    return java.nio.ByteBuffer.allocate(8).putLong(position).array();
                }

                @Override
                public void restorePosition(byte[] bytes) {
                    position = java.nio.ByteBuffer.wrap(bytes).getLong();
                }
            };
        }
    }

    /** The last output per key of a run over 0..RECORDS-1, whatever the stages. */
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

    /**
     * Whether RocksDB checkpoints incrementally (its own files, which only RocksDB restores); off by default
     * here, so that the stages may switch backends.
     */
    private boolean incremental;

    private StreamExecutionEnvironment env(int parallelism, StateBackendType backend) {
        return StreamExecutionEnvironment.create().setParallelism(parallelism).setStateBackend(backend)
                .setIncrementalCheckpoints(incremental)
                .enableCheckpointing(Duration.ofMillis(100)).setInlineStateThreshold(0)
                .setCheckpointDir(dir.resolve("checkpoints").toString());
    }

    private static void build(StreamExecutionEnvironment env, io.sluice.api.source.Source<Long> source,
                              CollectingSink<Tuple2<Long, String>> sink) {
        env.fromSource(source, "numbers").setParallelism(1)
                .keyBy(new KeyedCountingJob.ModKey(KEYS))
                .map(new CountListAndBuckets()).name("count, list and buckets")
                .returns(Serializers.tuple2(Serializers.LONG, Serializers.STRING))
                .addSink(sink, "results");
    }

    private static JobDetails details(JobId job) throws Exception {
        return cluster.dispatcher().requestJobDetails(job).get(10, TimeUnit.SECONDS);
    }

    /**
     * Runs a stage with the gate at {@code gate}: once the source waits at the gate, two more
     * checkpoints complete (so the last holds everything below the gate), and the stage is cancelled.
     */
    private JobId stage(int parallelism, StateBackendType backend, JobId restoreFrom, long gate) throws Exception {
        CollectingSink<Tuple2<Long, String>> sink = CollectingSink.create();
        GatedSequence source = GatedSequence.create();
        source.open(gate);
        try {
            StreamExecutionEnvironment env = env(parallelism, backend);
            build(env, source, sink);
            var graph = env.buildJobGraph("stage p" + parallelism + " " + backend.backendName());
            JobId job = submit(graph, restoreFrom == null ? null : "latest:" + restoreFrom);
            try {
                await().atMost(Duration.ofSeconds(120)).until(() -> source.waitingAt() == gate);
                long before = details(job).checkpoints().completed();
                await().atMost(Duration.ofSeconds(120)).until(() -> details(job).checkpoints().completed() >= before + 2);
            } catch (org.awaitility.core.ConditionTimeoutException e) {
                String status = details(job).status() + ": " + details(job).failureMessage();
                cancelQuietly(job);
                throw new AssertionError("stage p" + parallelism + " " + backend + " did not reach its gate " + gate
                        + " and two checkpoints after it: " + status, e);
            }
            cluster.dispatcher().cancelJob(job).get(10, TimeUnit.SECONDS);
            JobResult result = cluster.dispatcher().requestJobResult(job).get(60, TimeUnit.SECONDS);
            assertThat(result.status()).isEqualTo(JobStatus.CANCELED);
            System.out.printf("stage parallelism %d in %s: up to %d, %d records out, %d checkpoints%n", parallelism,
                    backend, gate, sink.count(), details(job).checkpoints().completed());
            return job;
        } finally {
            sink.release();
            source.release();
        }
    }

    private JobId stage(int parallelism, StateBackendType backend, JobId restoreFrom) throws Exception {
        return stage(parallelism, backend, restoreFrom, RECORDS / 4);
    }

    /** The last stage: restores from {@code restoreFrom}, reads to the end; its last output per key. */
    private Map<Long, String> finish(int parallelism, StateBackendType backend, String restoreFrom) throws Exception {
        CollectingSink<Tuple2<Long, String>> sink = CollectingSink.create();
        try {
            StreamExecutionEnvironment env = env(parallelism, backend);
            build(env, openGate(), sink);
            JobId job = submit(env.buildJobGraph("last stage p" + parallelism), restoreFrom);
            JobResult result;
            try {
                result = cluster.dispatcher().requestJobResult(job).get(2, TimeUnit.MINUTES);
            } catch (java.util.concurrent.TimeoutException e) {
                String status = String.valueOf(details(job).failureMessage());
                cancelQuietly(job); // free its slots for the other tests
                throw new AssertionError("the last stage did not finish in 2 minutes: " + status, e);
            }
            assertThat(result.status()).as(result.failureStackTrace()).isEqualTo(JobStatus.FINISHED);
            return CollectingSink.lastValuePerKey(sink.results(), Tuple2::f0, Tuple2::f1);
        } finally {
            sink.release();
        }
    }

    static Stream<Arguments> backends() {
        StateBackendType heap = StateBackendType.HEAP;
        StateBackendType rocks = StateBackendType.ROCKSDB;
        return Stream.of(
                Arguments.of("heap", List.of(heap, heap, heap, heap), false),
                Arguments.of("rocksdb, full snapshots", List.of(rocks, rocks, rocks, rocks), false),
                Arguments.of("rocksdb, incremental checkpoints", List.of(rocks, rocks, rocks, rocks), true),
                Arguments.of("heap -> rocksdb -> heap -> rocksdb", List.of(heap, rocks, heap, rocks), false),
                Arguments.of("rocksdb -> heap -> rocksdb -> heap", List.of(rocks, heap, rocks, heap), false));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("backends")
    void rescaling2To3To1To4KeepsEveryKeysValueListAndMapExact(String name, List<StateBackendType> backends,
                                                              boolean incremental) throws Exception {
        this.incremental = incremental;
        JobId a = stage(2, backends.get(0), null, RECORDS / 4);
        JobId b = stage(3, backends.get(1), a, RECORDS / 2);
        JobId c = stage(1, backends.get(2), b, 3 * RECORDS / 4);
        Map<Long, String> last = finish(4, backends.get(3), "latest:" + c);
        assertThat(last).isEqualTo(expected());
    }

    @Test
    void aCheckpointCopiedElsewhereRestoresFromTheCopyAlone() throws Exception {
        JobId a = stage(2, StateBackendType.ROCKSDB, null);
        Path jobDir = dir.resolve("checkpoints").resolve(a.value());
        Path copy = copyOfLatest(a, dir.resolve("elsewhere").resolve("monday backup"));
        deleteDirectory(jobDir); // nothing of the original is left
        assertThat(finish(3, StateBackendType.HEAP, copy.toString())).isEqualTo(expected());
    }

    @Test
    void anotherMaxParallelismATypeChangeASourceAtAnotherParallelismAndNoCheckpointAreRefusedAtOnceAndNothingIsDeleted() throws Exception {
        JobId a = stage(2, StateBackendType.HEAP, null);
        // A copy nothing else touches (the cancelled job may still be discarding a checkpoint it finalized as it ended).
        Path source = copyOfLatest(a, dir.resolve("refusal source"));
        String restoreFrom = source.toString();
        List<Path> before = files(source);

        StreamExecutionEnvironment other = env(2, StateBackendType.ROCKSDB).setMaxParallelism(64);
        CollectingSink<Tuple2<Long, String>> sink = CollectingSink.create();
        try {
            build(other, openGate(), sink);
            JobResult r = run(other, restoreFrom);
            assertThat(r.status()).isEqualTo(JobStatus.FAILED);
            assertThat(r.failureMessage()).contains("max parallelism 128").contains("max parallelism 64")
                    .contains("Set the max parallelism back to 128");
        } finally {
            sink.release();
        }

        StreamExecutionEnvironment changed = env(2, StateBackendType.HEAP);
        changed.fromSource(openGate(), "numbers").setParallelism(1)
                .keyBy(new KeyedCountingJob.ModKey(KEYS))
                .map(new CountAsText()).name("count, list and buckets")
                .returns(Serializers.STRING)
                .addSink(new io.sluice.api.sink.DiscardingSink<>(), "results");
        JobResult typeChanged = run(changed, restoreFrom);
        assertThat(typeChanged.status()).isEqualTo(JobStatus.FAILED);
        assertThat(typeChanged.failureMessage()).contains("State 'count'").contains("sluice.long")
                .contains("sluice.string").contains("its type changed");

        // The source ran at parallelism 1: its position is not redistributed, so another parallelism is refused
        // (before, the job ran and finished with some records read twice and others never).
        StreamExecutionEnvironment wider = env(2, StateBackendType.HEAP);
        wider.fromSource(openGate(), "numbers").setParallelism(2)
                .keyBy(new KeyedCountingJob.ModKey(KEYS))
                .map(new CountListAndBuckets()).name("count, list and buckets")
                .returns(Serializers.tuple2(Serializers.LONG, Serializers.STRING))
                .addSink(new io.sluice.api.sink.DiscardingSink<>(), "results");
        JobResult sourceRescaled = run(wider, restoreFrom);
        assertThat(sourceRescaled.status()).isEqualTo(JobStatus.FAILED);
        assertThat(sourceRescaled.failureMessage()).contains("source 'Source: numbers'")
                .contains("ran at parallelism 1").contains("runs it at parallelism 2").contains("setParallelism(1)");

        Path empty = Files.createDirectories(dir.resolve("not a checkpoint"));
        StreamExecutionEnvironment third = env(2, StateBackendType.HEAP);
        CollectingSink<Tuple2<Long, String>> sink3 = CollectingSink.create();
        try {
            build(third, openGate(), sink3);
            JobResult none = run(third, empty.toString());
            assertThat(none.status()).isEqualTo(JobStatus.FAILED);
            assertThat(none.failureMessage()).contains("is not a checkpoint or savepoint");
        } finally {
            sink3.release();
        }
        assertThat(files(source)).as("the checkpoint restored from is untouched").isEqualTo(before);
    }

    @Test
    void aCorruptStateFileInACopiedCheckpointMakesTheJobWaitNamingTheFileAndDeletesNothing() throws Exception {
        JobId a = stage(2, StateBackendType.HEAP, null);
        Path copy = copyOfLatest(a, dir.resolve("copies").resolve("corrupt"));
        Path stateFile;
        try (Stream<Path> files = Files.list(copy)) {
            stateFile = files.filter(p -> p.getFileName().toString().endsWith(".state")).findFirst().orElseThrow();
        }
        byte[] bytes = Files.readAllBytes(stateFile);
        bytes[bytes.length / 2] ^= 0x40;
        Files.write(stateFile, bytes);
        List<Path> before = files(copy);

        StreamExecutionEnvironment env = env(3, StateBackendType.ROCKSDB);
        CollectingSink<Tuple2<Long, String>> sink = CollectingSink.create();
        try {
            build(env, openGate(), sink);
            JobId job = submit(env.buildJobGraph("corrupt copy"), copy.toString());
            try {
                await().atMost(Duration.ofSeconds(60)).until(() -> {
                    String m = details(job).failureMessage();
                    return m != null && m.contains(stateFile.getFileName().toString()) && m.contains("Waiting");
                });
            } catch (org.awaitility.core.ConditionTimeoutException e) {
                // failed once in CI (2026-12-06) after 60 s, without saying why: say what the job showed instead
                JobDetails d = details(job);
                throw new AssertionError("the job restored from the copy with a corrupt " + stateFile.getFileName()
                        + " did not wait naming it within 60 s; it is " + d.status() + ": " + d.failureMessage()
                        + "; slots " + slots(), e);
            }
            System.out.println("status: " + details(job).failureMessage());
            assertThat(details(job).status()).isEqualTo(JobStatus.RESTARTING);
            cluster.dispatcher().cancelJob(job).get(10, TimeUnit.SECONDS);
            cluster.dispatcher().requestJobResult(job).get(60, TimeUnit.SECONDS);
        } finally {
            sink.release();
        }
        assertThat(files(copy)).as("nothing deleted").isEqualTo(before);
    }

    /** The changed job: "count" is a String now. */
    static final class CountAsText implements MapFunction<Long, String>, RichFunction {
        private transient ValueState<String> count;

        @Override
        public void open(RuntimeContext context) {
            count = context.getState(new ValueStateDescriptor<>("count", Serializers.STRING));
        }

        @Override
        public String map(Long value) {
            count.update(String.valueOf(value));
            return count.value();
        }
    }

    /** Submits once every slot is free again (the slots of an ended job are given back a little after its end). */
    private static JobId submit(io.sluice.graph.JobGraph graph, String restoreFrom) throws Exception {
        int total = 4;
        try {
            await().atMost(Duration.ofSeconds(60)).until(() -> cluster.slotPool().freeSlots() == total);
        } catch (org.awaitility.core.ConditionTimeoutException e) {
            throw new AssertionError("the slots were not all free 60 s before submitting " + graph.name() + ": "
                    + slots(), e);
        }
        return restoreFrom == null ? cluster.submit(graph) : cluster.submit(graph, restoreFrom);
    }

    /** The free slots per task executor and every job the dispatcher knows, with its status: for failure messages. */
    private static String slots() {
        String jobs;
        try {
            jobs = cluster.dispatcher().listJobs().get(10, TimeUnit.SECONDS).stream()
                    .map(j -> j.jobId() + " " + j.name() + " " + j.status()).toList().toString();
        } catch (Exception e) {
            jobs = "(could not list the jobs: " + e + ")";
        }
        return "free " + cluster.slotPool().freeSlotsByTaskExecutor() + " of " + cluster.slotPool().totalSlots()
                + ", jobs " + jobs;
    }

    private static void cancelQuietly(JobId job) {
        try {
            cluster.dispatcher().cancelJob(job).get(10, TimeUnit.SECONDS);
            cluster.dispatcher().requestJobResult(job).get(60, TimeUnit.SECONDS);
        } catch (Exception e) {
            System.out.println("could not cancel " + job + ": " + e);
        }
    }

    private JobResult run(StreamExecutionEnvironment env, String restoreFrom) throws Exception {
        JobId job = submit(env.buildJobGraph("refused"), restoreFrom);
        return cluster.dispatcher().requestJobResult(job).get(2, TimeUnit.MINUTES);
    }

    /**
     * A copy of the newest complete checkpoint of the ended job {@code job} at {@code target}; an older
     * one if the newest is deleted while being copied (a checkpoint finalized as the job was cancelled
     * is discarded afterwards, asynchronously).
     */
    private Path copyOfLatest(JobId job, Path target) throws Exception {
        List<Path> complete;
        try (Stream<Path> chks = Files.list(dir.resolve("checkpoints").resolve(job.value()))) {
            complete = chks.filter(p -> Files.exists(p.resolve("_metadata")))
                    .sorted((x, y) -> Long.compare(id(y), id(x))).toList();
        }
        for (Path chk : complete) {
            try {
                copyDirectory(chk, target);
                return target;
            } catch (java.io.IOException e) {
                deleteDirectory(target);
            }
        }
        throw new AssertionError("no complete checkpoint of " + job + " could be copied: " + complete);
    }

    private static long id(Path chk) {
        return Long.parseLong(chk.getFileName().toString().substring("chk-".length()));
    }

    private static List<Path> files(Path root) throws Exception {
        try (Stream<Path> walk = Files.walk(root)) {
            return walk.filter(Files::isRegularFile).sorted().toList();
        }
    }

    private static void copyDirectory(Path from, Path to) throws Exception {
        Files.createDirectories(to);
        List<Path> copied = new ArrayList<>();
        try (Stream<Path> files = Files.list(from)) {
            for (Path f : files.toList()) {
                Files.copy(f, to.resolve(f.getFileName()));
                copied.add(f);
            }
        }
        assertThat(copied).isNotEmpty();
    }

    /** Deletes {@code root}; files the cluster deletes at the same time are fine. */
    private static void deleteDirectory(Path root) throws Exception {
        for (int attempt = 0; Files.exists(root); attempt++) {
            try (Stream<Path> walk = Files.walk(root)) {
                for (Path p : walk.sorted(java.util.Comparator.reverseOrder()).toList()) {
                    Files.deleteIfExists(p);
                }
            } catch (java.io.IOException | java.io.UncheckedIOException e) {
                if (attempt >= 5) {
                    throw e;
                }
            }
        }
    }
}
