package io.sluice.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sluice.api.StreamExecutionEnvironment;
import io.sluice.api.functions.MapFunction;
import io.sluice.api.functions.RichFunction;
import io.sluice.api.functions.RuntimeContext;
import io.sluice.api.sink.CollectingSink;
import io.sluice.api.functions.Collector;
import io.sluice.api.source.SequenceSource;
import io.sluice.api.source.Source;
import io.sluice.api.source.SourceReader;
import io.sluice.core.serialization.TypeSerializer;
import io.sluice.api.state.ValueState;
import io.sluice.api.state.ValueStateDescriptor;
import io.sluice.api.tuple.Tuple2;
import io.sluice.checkpoint.CheckpointMetadataSerializer;
import io.sluice.checkpoint.CheckpointStorage;
import io.sluice.checkpoint.CompletedCheckpoint;
import io.sluice.checkpoint.SharedStateRegistry;
import io.sluice.checkpoint.TaskStateHandle;
import io.sluice.cluster.LocalCluster;
import io.sluice.config.Configuration;
import io.sluice.config.RestartStrategyConfig;
import io.sluice.config.StateBackendType;
import io.sluice.core.serialization.Serializers;
import io.sluice.examples.KeyedCountingJob;
import io.sluice.graph.JobId;
import io.sluice.job.JobResult;
import io.sluice.job.JobStatus;
import io.sluice.metrics.MetricNames;
import io.sluice.protocol.DispatcherGateway;
import io.sluice.protocol.JobDetails;
import io.sluice.storage.BlobOp;
import io.sluice.storage.BlobStore;
import io.sluice.storage.ForwardingBlobStore;
import io.sluice.storage.InstrumentedBlobStore;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A job-manager failover of a job with RocksDB's incremental checkpoints, N in {1, 10, 50} of them
 * retained, sharing many table files (the task executors' {@code state.backend.rocksdb.compaction.target-file-size}
 * is 16 kb, so a few MB of state are 70-80 files per checkpoint, and the registry of 50 retained checkpoints
 * names hundreds, with over 3,000 references): from the moment the leader stops until the new leader's job runs and its tasks
 * restored, the new leader reads exactly one metadata file (the latest checkpoint's), nothing lists
 * checkpoint storage until its first checkpoint was written (then only the uploads of checkpoints that never
 * completed are listed, by their ids: {@code AbandonedUploads}), and no file of any other checkpoint is read (the shared-state registry comes from
 * that metadata alone); the restored tasks read exactly the latest checkpoint's files, each once. Then the
 * job finishes with exact counts.
 *
 * <p>Counted twice: by the storage instrumentation (the checkpoint storage's metadata and state-file read
 * counters, and {@code sluice.storage.requests} per operation from {@link InstrumentedBlobStore}) and by a
 * decorator that records the path of every read, which tells the latest checkpoint's files from the others'.
 */
class IncrementalCheckpointRecoveryITCase {
    private static final int KEYS = 8_000;
    /** A value per key, incompressible, rewritten by every record: the state is about KEYS x this in table files. */
    private static final int PADDING = 192;

    @TempDir
    Path dir;
    private final Recorder recorder = new Recorder();
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private LocalCluster cluster;
    private CollectingSink<Tuple2<Long, Long>> sink;

    /**
     * Records reads of checkpoint storage while recording, and in one sequence its listings and the metadata writes
     * (with the storage instrumentation's listing count at each write): which listings came before the new leader's
     * first checkpoint was written (its recovery is over then) is told afterwards, once the recovered checkpoint's id
     * is known.
     */
    private static final class Recorder {
        volatile boolean on;
        final List<String> gets = new ArrayList<>();
        final Map<String, byte[]> metadata = new HashMap<>();
        /** "list <prefix>" and "write <metadata path> <instrumented listings>", in order. */
        final List<String> events = new ArrayList<>();
        volatile java.util.function.LongSupplier listings = () -> -1;

        BlobStore decorate(BlobStore store) {
            return new ForwardingBlobStore(store) {
                @Override
                public void put(String path, byte[] data) {
                    super.put(path, data);
                    if (on && path.endsWith("/_metadata")) {
                        synchronized (Recorder.this) {
                            events.add("write " + path + " " + listings.getAsLong());
                        }
                    }
                }

                @Override
                public byte[] get(String path) {
                    byte[] data = super.get(path);
                    if (on) {
                        synchronized (Recorder.this) {
                            gets.add(path);
                            if (path.endsWith("/_metadata")) {
                                metadata.put(path, data);
                            }
                        }
                    }
                    return data;
                }

                @Override
                public java.io.InputStream openRead(String path) {
                    java.io.InputStream in = super.openRead(path);
                    if (on) {
                        synchronized (Recorder.this) {
                            gets.add(path); // a streamed read (shared and private files): a get as well
                        }
                    }
                    return in;
                }

                @Override
                public List<String> list(String prefix) {
                    if (on) {
                        synchronized (Recorder.this) {
                            events.add("list " + prefix);
                        }
                    }
                    return super.list(prefix);
                }
            };
        }
    }

    /**
     * Counts records per key, like {@link KeyedCountingJob}, and rewrites a random padding value of the key with
     * every record, so that a few thousand records make MBs of state and compactions rewrite many table files.
     */
    static final class CountWithPadding implements MapFunction<Long, Tuple2<Long, Long>>, RichFunction {
        private final int keys;
        private transient ValueState<Long> count;
        private transient ValueState<byte[]> padding;

        CountWithPadding(int keys) {
            this.keys = keys;
        }

        @Override
        public void open(RuntimeContext context) {
            count = context.getState(new ValueStateDescriptor<>("count", Serializers.LONG));
            padding = context.getState(new ValueStateDescriptor<>("padding", Serializers.BYTES));
        }

        @Override
        public Tuple2<Long, Long> map(Long value) {
            long key = value % keys;
            Long c = count.value();
            long next = c == null ? 1 : c + 1;
            count.update(next);
            byte[] bytes = new byte[PADDING];
            new SplittableRandom(value).nextBytes(bytes);
            padding.update(bytes);
            return new Tuple2<>(key, next);
        }
    }

    /** Whether the {@link HeldSource} of a test runs at full speed; set by the test, read by the task threads. */
    static final Map<String, Boolean> OPEN = new java.util.concurrent.ConcurrentHashMap<>();

    /**
     * A bounded sequence that emits its first {@code fill} records per subtask at full speed, then one record
     * every {@code trickle} (so every checkpoint has a little new state) until the test opens its gate, then
     * the rest at full speed: the job runs as long as the test needs, whatever the machine's load, and
     * finishes soon after. Positions are the sequence's own.
     */
    record HeldSource(String gate, long records, int fillPerSubtask, Duration trickle) implements Source<Long> {
        @Override
        public SourceReader<Long> createReader(int subtaskIndex, int parallelism) {
            SourceReader<Long> sequence = SequenceSource.bounded(0, records - 1).createReader(subtaskIndex, parallelism);
            long trickleNanos = trickle.toNanos();
            // Confined to the task thread, as SourceReader requires.
            return new SourceReader<>() {
                private int emitted;
                private long lastTrickle = System.nanoTime();

                @Override
                public int emit(Collector<Long> out, int maxRecords) throws Exception {
                    int limit = maxRecords;
                    if (emitted < fillPerSubtask) {
                        limit = Math.min(maxRecords, fillPerSubtask - emitted);
                    } else if (!OPEN.getOrDefault(gate, false)) {
                        if (nanosUntilAvailable() > 0) {
                            return 0; // the task sleeps until the next trickle (at most a trickle: then it sees the gate)
                        }
                        lastTrickle = System.nanoTime();
                        limit = 1;
                    }
                    int n = sequence.emit(out, limit);
                    if (n > 0) {
                        emitted += n;
                    }
                    return n;
                }

                @Override
                public long nanosUntilAvailable() {
                    if (emitted < fillPerSubtask || OPEN.getOrDefault(gate, false)) {
                        return 0;
                    }
                    return Math.max(0, lastTrickle + trickleNanos - System.nanoTime());
                }

                @Override
                public byte[] snapshotPosition() {
                    return sequence.snapshotPosition();
                }

                @Override
                public void restorePosition(byte[] position) throws Exception {
                    sequence.restorePosition(position);
                    emitted = fillPerSubtask; // restored from a checkpoint taken after the fill
                }
            };
        }

        @Override
        public boolean isBounded() {
            return true;
        }

        @Override
        public TypeSerializer<Long> serializer() {
            return Serializers.LONG;
        }
    }

    @BeforeEach
    void start() {
        Configuration configuration = new Configuration()
                .setString("state.backend.rocksdb.compaction.target-file-size", "16 kb")
                // A compaction every 4 flushes (RocksDB's own trigger; Sluice's default is 12), so that the N + 10
                // checkpoints after the fill replace table files that only older retained checkpoints still use.
                .setString("state.backend.rocksdb.compaction.level0-files", "4")
                .setString("state.backend.rocksdb.local-dir", dir.resolve("rocksdb").toString());
        cluster = LocalCluster.builder().haDirectory(dir.resolve("ha")).configuration(configuration)
                .meterRegistry(registry).blobStoreDecorator(recorder::decorate).build();
        sink = CollectingSink.create();
    }

    @AfterEach
    void stop() {
        cluster.close();
        sink.release();
        OPEN.clear();
    }

    @ParameterizedTest(name = "{0} retained")
    @ValueSource(ints = {1, 10, 50})
    void aNewLeaderReadsOneMetadataFileAndOnlyTheLatestCheckpointsFiles(int retained) throws Exception {
        // The fill (KEYS), then 400 records/s until the failover (80 s of them, more than the waits allow), the rest
        // at full speed.
        long records = 40_000;
        String gate = "incremental failover " + retained + " " + java.util.UUID.randomUUID();
        OPEN.put(gate, false);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.create().setParallelism(2)
                .setStateBackend(StateBackendType.ROCKSDB).setIncrementalCheckpoints(true)
                .setRetainedCheckpoints(retained).enableCheckpointing(Duration.ofMillis(20)).setInlineStateThreshold(0)
                .setCheckpointDir(dir.resolve("checkpoints").toString())
                .setRestartStrategy(new RestartStrategyConfig.FixedDelay(10, Duration.ofMillis(10)));
        env.fromSource(new HeldSource(gate, records, KEYS / 2, Duration.ofMillis(5)), "numbers")
                .keyBy(new KeyedCountingJob.ModKey(KEYS))
                .map(new CountWithPadding(KEYS)).name("count per key")
                .returns(Serializers.tuple2(Serializers.LONG, Serializers.LONG))
                .addSink(sink, "results");
        JobId id = cluster.submit(env.buildJobGraph("incremental failover, " + retained + " retained"));

        DispatcherGateway first = cluster.dispatcher();
        // Every key has its state after the fill (KEYS records); then N + 10 more checkpoints: N are retained, and
        // each has table files that compactions wrote (a compaction every 4 flushes) after the fill.
        await().atMost(Duration.ofSeconds(60)).until(() -> sink.results().size() >= KEYS);
        long filled = details(first, id).checkpoints().completed();
        await().atMost(Duration.ofSeconds(60)).until(() ->
                details(first, id).checkpoints().completed() >= filled + retained + 10);
        LocalCluster.JobManager standby = cluster.startJobManager();
        await().atMost(Duration.ofSeconds(10)).until(() ->
                cluster.haServices().dispatcherLeaderRetrieval().currentLeader().isPresent());
        assertThat(standby.dispatcher().isLeader()).isFalse();
        assertThat(details(first, id).status()).as("the job still runs when the leader stops").isEqualTo(JobStatus.RUNNING);

        long metadataReads = storage().metadataReads();
        long stateReads = storage().stateReads();
        long listings = storageRequests(BlobOp.LIST);
        recorder.listings = () -> storageRequests(BlobOp.LIST);
        recorder.on = true;
        cluster.stopJobManager(cluster.jobManagers().get(0));
        await().atMost(Duration.ofSeconds(10)).until(() -> standby.dispatcher().isLeader());
        // Recovered and restored once the new leader's first checkpoint completed (the tasks read before they run).
        await().atMost(Duration.ofSeconds(60)).until(() -> {
            JobDetails d = details(standby.dispatcher(), id);
            return d.status() == JobStatus.RUNNING && d.checkpoints().completed() >= 1;
        });
        recorder.on = false;

        List<String> gets;
        synchronized (recorder) {
            gets = List.copyOf(recorder.gets);
        }
        List<String> metadataGets = gets.stream().filter(p -> p.endsWith("/_metadata")).toList();
        assertThat(storage().metadataReads() - metadataReads).as("metadata reads counted by the checkpoint storage")
                .isEqualTo(1);
        assertThat(metadataGets).as("metadata read by the new leader").hasSize(1);
        String path = metadataGets.get(0);
        CompletedCheckpoint latest = new CheckpointMetadataSerializer().deserialize(recorder.metadata.get(path), path);
        checkNoListingDuringRecovery(id, latest.checkpointId(), listings);
        Set<String> ownFiles = new TreeSet<>();
        for (TaskStateHandle h : latest.taskStates()) {
            if (h.isIncremental()) {
                h.incremental().sharedFiles().forEach(f -> ownFiles.add(f.path()));
                h.incremental().privateFiles().forEach(f -> ownFiles.add(f.path()));
            }
        }
        Set<Long> referring = new HashSet<>();
        latest.sharedFileReferences().values().forEach(referring::addAll);
        long shared = latest.sharedFileReferences().values().stream().filter(ids -> ids.size() > 1).count();
        long references = latest.sharedFileReferences().values().stream().mapToLong(List::size).sum();
        Set<String> othersOnly = new TreeSet<>(latest.sharedFileReferences().keySet());
        othersOnly.removeAll(ownFiles);
        System.out.printf("%d retained: the latest checkpoint %d has %d files; the registry in its metadata names %d"
                        + " shared files (%d references) of %d checkpoints, %d files shared by several, %d of older"
                        + " checkpoints only%n", retained, latest.checkpointId(), ownFiles.size(),
                latest.sharedFileReferences().size(), references, referring.size(), shared, othersOnly.size());
        assertThat(ownFiles).as("the latest checkpoint is incremental, in many table files").hasSizeGreaterThan(40);
        // Taken when the latest completed, before the oldest was subsumed: N or N + 1 checkpoints.
        assertThat(referring).as("the registry spans the retained checkpoints").hasSizeBetween(retained, retained + 1);
        assertThat(latest.sharedFileReferences()).as("shared files in the registry").hasSizeGreaterThan(4 * retained);
        if (retained > 1) {
            assertThat(shared).as("files shared by several retained checkpoints").isPositive();
            assertThat(othersOnly).as("files of older retained checkpoints only, which recovery must not read")
                    .hasSizeGreaterThan(retained);
        }

        List<String> fileGets = gets.stream().filter(p -> !p.endsWith("/_metadata")).toList();
        assertThat(fileGets).as("files read during recovery and restore: none of older checkpoints only")
                .noneMatch(othersOnly::contains)
                .allMatch(ownFiles::contains);
        assertThat(fileGets).as("the latest checkpoint's files, each read once, all of them").doesNotHaveDuplicates()
                .containsExactlyInAnyOrderElementsOf(ownFiles);
        assertThat(storage().stateReads() - stateReads).as("state-file reads counted by the checkpoint storage")
                .isEqualTo(ownFiles.size());

        OPEN.put(gate, true);
        JobResult result = standby.dispatcher().requestJobResult(id).get(120, TimeUnit.SECONDS);
        assertThat(result.status()).isEqualTo(JobStatus.FINISHED);
        Map<Long, Long> last = CollectingSink.lastValuePerKey(sink.results(), Tuple2::f0, Tuple2::f1);
        assertThat(last).isEqualTo(KeyedCountingJob.expectedCounts(records, KEYS));
    }

    /**
     * Until the new leader's first checkpoint (the first id above {@code recovered}) was written, nothing listed
     * checkpoint storage but the old leader, finding what its own aborted checkpoints left (ids below the
     * recovered one); afterwards the new leader does the same for the ids above ({@code AbandonedUploads}), and
     * lists the own directories of the checkpoints a previous leader triggered above the recovered one.
     */
    private void checkNoListingDuringRecovery(JobId id, long recovered, long listingsBefore) {
        List<String> events;
        synchronized (recorder) {
            events = List.copyOf(recorder.events);
        }
        String uploads = id.value() + "/shared/" + SharedStateRegistry.UPLOAD_PREFIX;
        boolean recoveryOver = false;
        long listedByTheOldLeader = 0;
        for (String event : events) {
            String[] parts = event.split(" ");
            if (parts[0].equals("write")) {
                long checkpoint = Long.parseLong(parts[1].replaceAll(".*/chk-(\\d+)/_metadata$", "$1"));
                if (!recoveryOver && checkpoint > recovered) {
                    recoveryOver = true;
                    assertThat(Long.parseLong(parts[2]) - listingsBefore).as("listings counted by the storage"
                            + " instrumentation until the new leader's first checkpoint was written: the old"
                            + " leader's, " + events).isEqualTo(listedByTheOldLeader);
                }
                continue;
            }
            String prefix = parts[1];
            java.util.regex.Matcher directory = java.util.regex.Pattern.compile(
                    java.util.regex.Pattern.quote(id.value()) + "/chk-(\\d+)/").matcher(prefix);
            if (directory.matches()) {
                assertThat(recoveryOver).as("the directory of a previous leader's checkpoint is listed only after the"
                        + " new leader's first checkpoint was written, " + events).isTrue();
                assertThat(Long.parseLong(directory.group(1))).as("only of ids above the recovered " + recovered + ", "
                        + events).isGreaterThan(recovered);
                continue;
            }
            assertThat(prefix).as("what may be listed at all: uploads by checkpoint id, or the directory of a"
                    + " checkpoint a previous leader triggered, " + events).startsWith(uploads);
            long uploadedFor = SharedStateRegistry.uploadedFor(prefix, uploads);
            if (!recoveryOver) {
                assertThat(uploadedFor).as("a listing before the new leader's first checkpoint was written: only the"
                        + " old leader's, of ids below the recovered " + recovered + ", " + events)
                        .isBetween(0L, recovered - 1);
                listedByTheOldLeader++;
            }
        }
        assertThat(recoveryOver).as("the new leader's first checkpoint was written, " + events).isTrue();
    }

    /** Calls of {@code op} on checkpoint storage, successful or not, counted by {@link InstrumentedBlobStore}. */
    private long storageRequests(BlobOp op) {
        return Math.round(registry.find(InstrumentedBlobStore.REQUESTS_METRIC)
                .tag(MetricNames.TAG_OPERATION, op.tagValue()).counters().stream().mapToDouble(Counter::count).sum());
    }

    private CheckpointStorage storage() {
        return cluster.checkpointStorages().forLocation(dir.resolve("checkpoints").toString());
    }

    private JobDetails details(DispatcherGateway dispatcher, JobId id) throws Exception {
        return dispatcher.requestJobDetails(id).get(5, TimeUnit.SECONDS);
    }
}
