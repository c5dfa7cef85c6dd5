package io.sluice.state.rocksdb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.api.state.ListState;
import io.sluice.api.state.ListStateDescriptor;
import io.sluice.api.state.MapState;
import io.sluice.api.state.MapStateDescriptor;
import io.sluice.api.state.ValueState;
import io.sluice.api.state.ValueStateDescriptor;
import io.sluice.config.Configuration;
import io.sluice.config.IllegalConfigurationException;
import io.sluice.config.StateBackendOptions;
import io.sluice.config.StateBackendType;
import io.sluice.core.serialization.DataInputBuffer;
import io.sluice.core.serialization.DataOutputBuffer;
import io.sluice.core.serialization.Serializers;
import io.sluice.state.KeyGroupRange;
import io.sluice.state.KeyedStateBackend;
import io.sluice.state.KeyedStateBackendParameters;
import io.sluice.state.KeyedStateSnapshot;
import io.sluice.state.StateBackend;
import io.sluice.state.StateBackends;
import io.sluice.util.ManualClock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What only the RocksDB backend does: its layout, its per-slot memory, its local files, and closing it safely. */
class RocksDbKeyedStateBackendTest {
    private static final int MAX_PARALLELISM = 128;
    private static final KeyGroupRange ALL = KeyGroupRange.of(0, MAX_PARALLELISM - 1);

    @TempDir
    Path localDir;
    private RocksDbStateBackend stateBackend;
    private final List<KeyedStateBackend> opened = new ArrayList<>();

    @AfterEach
    void close() {
        opened.forEach(KeyedStateBackend::close);
        if (stateBackend != null) {
            stateBackend.close();
        }
    }

    private RocksDbStateBackend stateBackend(long memoryPerSlot) {
        stateBackend = new RocksDbStateBackend(new Configuration()
                .set(RocksDbOptions.MEMORY_PER_SLOT, memoryPerSlot)
                .set(RocksDbOptions.LOCAL_DIR, localDir.toString()));
        return stateBackend;
    }

    private RocksDbKeyedStateBackend open(String owner, String slot) {
        RocksDbKeyedStateBackend b = (RocksDbKeyedStateBackend) stateBackend.createKeyedStateBackend(
                new KeyedStateBackendParameters(owner, slot, ALL, MAX_PARALLELISM, Serializers.LONG, new ManualClock(0)));
        opened.add(b);
        return b;
    }

    @Test
    void theStateBackendsOfATaskExecutorFindRocksDbByNameAndCreateItOnce() {
        try (StateBackends backends = StateBackends.fromConfiguration(new Configuration()
                .set(StateBackendOptions.BACKEND, StateBackendType.ROCKSDB)
                .set(RocksDbOptions.LOCAL_DIR, localDir.toString()))) {
            StateBackend b = backends.backend(null);
            assertThat(b).isInstanceOf(RocksDbStateBackend.class);
            assertThat(backends.backend("rocksdb")).isSameAs(b);
            assertThat(backends.backend("heap").name()).isEqualTo("heap");
        }
    }

    @Test
    void invalidMemorySettingsAreRefusedNamingTheKey() {
        assertThatThrownBy(() -> new RocksDbStateBackend(new Configuration()
                .setString("state.backend.rocksdb.memory.per-slot", "1 mb")))
                .isInstanceOf(IllegalConfigurationException.class)
                .hasMessageContaining("state.backend.rocksdb.memory.per-slot").hasMessageContaining("at least 8 mb");
        assertThatThrownBy(() -> new RocksDbStateBackend(new Configuration()
                .setString("state.backend.rocksdb.memory.per-slot", "lots")))
                .isInstanceOf(IllegalConfigurationException.class).hasMessageContaining("64 mb");
    }

    @Test
    void keysAreLaidOutByKeyGroupSoEachGroupIsOneContiguousRange() throws Exception {
        stateBackend(16L << 20);
        RocksDbKeyedStateBackend b = open("layout", "s");
        ValueState<Long> v = b.getValueState(new ValueStateDescriptor<>("v", Serializers.LONG));
        for (long k = 0; k < 2000; k++) {
            b.setCurrentKey(k);
            v.update(k);
        }
        // Iterating the column family in RocksDB's order sees the key groups ascending, each once.
        List<Integer> groups = new ArrayList<>();
        b.keysOf("v").forEach(k -> {
            int g = io.sluice.state.KeyGroups.keyGroupFor(k, MAX_PARALLELISM);
            if (groups.isEmpty() || groups.get(groups.size() - 1) != g) {
                groups.add(g);
            }
        });
        assertThat(groups).isSorted().doesNotHaveDuplicates().hasSize(MAX_PARALLELISM);
    }

    /**
     * A task manager killed by SIGKILL (or the OOM killer) cannot delete its tasks' RocksDB directories: the next
     * backend opened in the same local directory deletes them (an owner whose lock file nobody holds, as a killed
     * process's; a live process in another JVM is {@code DirectoryClaimsTest}'s); this process's are kept.
     */
    @Test
    void theDirectoriesOfAProcessThatNoLongerRunsAreDeletedByTheNextBackendOpenedThere() throws Exception {
        String dead = "4242-0093be93";
        Files.write(localDir.resolve(".owner-" + dead + ".lock"), new byte[0]); // its lock went with the process
        Path killed = Files.createDirectories(localDir.resolve(RocksDbStateBackend.TASK_DIRECTORY_BASE + dead
                + "-count_per_key_1_2_-0093be93-a25a-4d74"));
        Files.write(killed.resolve("000042.sst"), new byte[4096]);
        Path unclaimed = Files.createDirectories(localDir.resolve("count_per_key-0093be93-a25a-4d76"));
        stateBackend(16L << 20);

        RocksDbKeyedStateBackend first = open("count per key (1/2)", "job/0");
        assertThat(killed).as("the ended process's directory, with its files").doesNotExist();
        assertThat(localDir.resolve(".owner-" + dead + ".lock")).as("its lock file").doesNotExist();
        assertThat(unclaimed).as("a name without a claim (not this backend's)").exists();
        assertThat(first.directory().getFileName().toString()).as("this process's own names carry its claim")
                .startsWith(RocksDbStateBackend.TASK_DIRECTORY_BASE + ProcessHandle.current().pid() + "-");

        // Not once per process: a process killed while this one runs leaves directories that its next backend deletes.
        String deadLater = "4243-0093be94";
        Files.write(localDir.resolve(".owner-" + deadLater + ".lock"), new byte[0]);
        Path killedLater = Files.createDirectories(localDir.resolve(RocksDbStateBackend.TASK_DIRECTORY_BASE
                + deadLater + "-window_1_2_-0093be93-a25a-4d77"));
        open("window (1/2)", "job/1");
        assertThat(killedLater).doesNotExist();
        assertThat(first.directory()).as("the open backend's own directory").exists();
    }

    @Test
    void backendsOfOneSlotShareOneMemoryBudgetWhichGoesWithTheLastOfThem() {
        stateBackend(16L << 20);
        RocksDbKeyedStateBackend a = open("a", "job/0");
        RocksDbKeyedStateBackend b = open("b", "job/0");
        RocksDbKeyedStateBackend c = open("c", "job/1");
        assertThat(a.slotMemory()).isSameAs(b.slotMemory());
        assertThat(c.slotMemory()).isNotSameAs(a.slotMemory());
        assertThat(stateBackend.openSlots()).isEqualTo(2);
        assertThat(a.metrics().memoryBudgetBytes()).isEqualTo(16L << 20);

        a.close();
        b.close();
        c.close();
        assertThat(a.metrics().memoryUsageBytes()).as("a closed backend reports no figures").isNaN();
        stateBackend.close(); // waits for the closer
        assertThat(stateBackend.openSlots()).isZero();
        assertThat(List.of(a.directory(), b.directory(), c.directory())).allSatisfy(d -> assertThat(d).doesNotExist());
    }

    @Test
    void aClosedInstanceIsFreedOnTheCloserAndItsSlotMemoryIsSharedWithTheSlotsNextBackendMeanwhile() {
        List<Runnable> closer = new ArrayList<>();
        stateBackend = new RocksDbStateBackend(new Configuration()
                .set(RocksDbOptions.MEMORY_PER_SLOT, 16L << 20)
                .set(RocksDbOptions.LOCAL_DIR, localDir.toString()), closer::add);
        RocksDbKeyedStateBackend failed = open("failed", "job/0");
        RocksDbKeyedStateBackend other = open("other", "job/1");
        failed.close();
        other.close();
        assertThat(closer).as("closing hands the native work to the closer").hasSize(2);
        assertThat(failed.directory()).as("not deleted on the task thread").exists();
        assertThat(stateBackend.openSlots()).as("the memory stays counted until freed").isEqualTo(2);

        RocksDbKeyedStateBackend restarted = open("restarted", "job/0");
        assertThat(restarted.slotMemory()).as("the slot's next backend shares the memory being freed")
                .isSameAs(failed.slotMemory());
        closer.remove(0).run();
        assertThat(failed.directory()).doesNotExist();
        assertThat(stateBackend.openSlots()).as("job/0's memory stays with the restarted backend").isEqualTo(2);
        closer.remove(0).run();
        assertThat(other.directory()).doesNotExist();
        assertThat(stateBackend.openSlots()).isEqualTo(1);
        restarted.close();
        closer.remove(0).run();
        assertThat(stateBackend.openSlots()).isZero();
    }

    @Test
    void writeBuffersAreChargedToTheSlotBudgetAndFlushedBeforeTheyExceedIt() {
        long budget = 16L << 20;
        stateBackend(budget);
        RocksDbKeyedStateBackend b = open("writer", "slot");
        ValueState<byte[]> v = b.getValueState(new ValueStateDescriptor<>("v", Serializers.BYTES));
        java.util.Random random = new java.util.Random(7);
        byte[] value = new byte[1024];
        long maxUsage = 0;
        for (long k = 0; k < 64 * 1024; k++) { // 64 MiB of incompressible values: 4 x the budget
            random.nextBytes(value);
            b.setCurrentKey(k);
            v.update(value);
            if (k % 1024 == 0) {
                maxUsage = Math.max(maxUsage, (long) b.metrics().memoryUsageBytes());
            }
        }
        System.out.printf("slot budget %d bytes, highest usage seen %d bytes, on disk %.0f bytes%n", budget, maxUsage,
                b.metrics().diskBytes());
        assertThat(maxUsage).as("memtables are charged to the cache").isPositive();
        assertThat(maxUsage).as("the slot's usage stays within its budget (plus one arena block)")
                .isLessThanOrEqualTo(budget + (1L << 20));
        assertThat(b.metrics().diskBytes()).as("flushed to disk").isGreaterThan(budget);
        b.setCurrentKey(12_345L);
        assertThat(v.value()).hasSize(1024);
    }

    @Test
    void compactionsSplitTheirOutputAtTheTargetFileSize() throws Exception {
        assertThat(tableFilesAfterCompaction(null)).as("2 MiB in RocksDB's default 64 MiB files").isEqualTo(1L);
        stateBackend.close();
        stateBackend = null;
        assertThat(tableFilesAfterCompaction("16 kb")).as("2 MiB in files of 16 to 32 KiB (RocksDB cuts at up to twice the target)").isBetween(64L, 130L);
        assertThatThrownBy(() -> new RocksDbStateBackend(new Configuration()
                .setString("state.backend.rocksdb.compaction.target-file-size", "4 kb")))
                .isInstanceOf(IllegalConfigurationException.class)
                .hasMessageContaining("state.backend.rocksdb.compaction.target-file-size")
                .hasMessageContaining("at least 16 kb");
    }

    @Test
    void level0FilesAreCompactedAtTwelveWritesSlowDownAtTwentyFourAndStopAtFortyEightByDefaultOrAsConfigured()
            throws Exception {
        stateBackend = new RocksDbStateBackend(new Configuration().set(RocksDbOptions.LOCAL_DIR, localDir.toString()));
        assertThat(level0Triggers(open("defaults", "slot"))).containsExactly("level0_file_num_compaction_trigger=12",
                "level0_slowdown_writes_trigger=24", "level0_stop_writes_trigger=48");
        stateBackend.close();
        stateBackend = new RocksDbStateBackend(new Configuration().set(RocksDbOptions.LOCAL_DIR, localDir.toString())
                .setString("state.backend.rocksdb.compaction.level0-files", "4")
                .setString("state.backend.rocksdb.compaction.level0-slowdown-files", "12")
                .setString("state.backend.rocksdb.compaction.level0-stop-files", "30"));
        assertThat(level0Triggers(open("configured", "slot"))).containsExactly("level0_file_num_compaction_trigger=4",
                "level0_slowdown_writes_trigger=12", "level0_stop_writes_trigger=30");
        assertThatThrownBy(() -> new RocksDbStateBackend(new Configuration()
                .setString("state.backend.rocksdb.compaction.level0-slowdown-files", "20")
                .setString("state.backend.rocksdb.compaction.level0-stop-files", "20")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("level0-stop-files (20) must be above")
                .hasMessageContaining("level0-slowdown-files (20)");
        assertThatThrownBy(() -> new RocksDbStateBackend(new Configuration()
                .setString("state.backend.rocksdb.compaction.level0-slowdown-files", "8")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("level0-slowdown-files (8) must be above")
                .hasMessageContaining("level0-files (12)");
    }

    /** Every state's memtables have a whole-key bloom filter of a tenth of their size, as RocksDB's options file says. */
    @Test
    void everyStatesMemtablesHaveAWholeKeyBloomFilter() throws Exception {
        stateBackend(16L << 20);
        assertThat(columnOptions(open("defaults", "slot"), l -> l.startsWith("memtable_prefix_bloom_size_ratio=")
                || l.startsWith("memtable_whole_key_filtering="))).containsExactly(
                "memtable_prefix_bloom_size_ratio=0.100000", "memtable_whole_key_filtering=true");
    }

    /**
     * Every state's memtables keep an insert hint per key group (the keys' 2-byte prefix), as RocksDB's options file
     * says; the other options set beside it (the memtable filter, the level-0 triggers) are still in effect.
     */
    @Test
    void everyStatesMemtablesKeepAnInsertHintPerKeyGroup() throws Exception {
        stateBackend(16L << 20);
        RocksDbKeyedStateBackend b = open("defaults", "slot");
        assertThat(columnOptions(b, l -> l.startsWith("memtable_insert_with_hint_prefix_extractor=")))
                .containsExactly("memtable_insert_with_hint_prefix_extractor=rocksdb.FixedPrefix.2");
        assertThat(level0Triggers(b)).containsExactly("level0_file_num_compaction_trigger=12",
                "level0_slowdown_writes_trigger=24", "level0_stop_writes_trigger=48");
    }

    /**
     * With 32,768 key groups on one subtask, a hint each would take 12 MiB of every 2 MiB memtable of a 16 MiB slot:
     * the memtables keep none. The limit is a sixteenth of a memtable.
     */
    @Test
    void withMoreKeyGroupsThanTheMemtablesHaveRoomForTheyKeepNoInsertHints() throws Exception {
        stateBackend(16L << 20);
        int maxParallelism = 1 << 15;
        RocksDbKeyedStateBackend b = (RocksDbKeyedStateBackend) stateBackend.createKeyedStateBackend(
                new KeyedStateBackendParameters("many key groups", "slot", KeyGroupRange.of(0, maxParallelism - 1),
                        maxParallelism, Serializers.LONG, new ManualClock(0)));
        opened.add(b);
        assertThat(columnOptions(b, l -> l.startsWith("memtable_insert_with_hint_prefix_extractor=")))
                .containsExactly("memtable_insert_with_hint_prefix_extractor=nullptr");
        assertThat(RocksDbInstance.insertHints(341, 2L << 20)).isTrue();
        assertThat(RocksDbInstance.insertHints(342, 2L << 20)).isFalse();
    }

    /** The level-0 triggers of the column family of a new state, as RocksDB wrote them to its OPTIONS file. */
    private static java.util.List<String> level0Triggers(RocksDbKeyedStateBackend b) throws Exception {
        return columnOptions(b, l -> l.startsWith("level0_file_num_compaction_trigger=")
                || l.startsWith("level0_slowdown_writes_trigger=") || l.startsWith("level0_stop_writes_trigger="));
    }

    /** The lines of state "v"'s column family options that {@code wanted} picks, from RocksDB's newest options file. */
    private static java.util.List<String> columnOptions(RocksDbKeyedStateBackend b,
                                                        java.util.function.Predicate<String> wanted) throws Exception {
        b.getValueState(new ValueStateDescriptor<>("v", Serializers.LONG));
        java.nio.file.Path options;
        try (java.util.stream.Stream<java.nio.file.Path> files = java.nio.file.Files.list(b.directory())) {
            options = files.filter(f -> f.getFileName().toString().startsWith("OPTIONS-"))
                    .max(java.util.Comparator.comparing(f -> f.getFileName().toString())).orElseThrow();
        }
        String text = java.nio.file.Files.readString(options);
        String column = text.substring(text.indexOf("[CFOptions \"v\"]"));
        return column.lines().map(String::trim).filter(wanted).sorted().toList();
    }

    /** Writes 2 MiB of incompressible values twice, compacts them all, and counts the table files. */
    private long tableFilesAfterCompaction(String targetFileSize) throws Exception {
        Configuration configuration = new Configuration().set(RocksDbOptions.LOCAL_DIR, localDir.toString());
        if (targetFileSize != null) {
            configuration.setString("state.backend.rocksdb.compaction.target-file-size", targetFileSize);
        }
        stateBackend = new RocksDbStateBackend(configuration);
        RocksDbKeyedStateBackend b = open("compacting " + targetFileSize, "slot");
        ValueState<byte[]> v = b.getValueState(new ValueStateDescriptor<>("v", Serializers.BYTES));
        java.util.Random random = new java.util.Random(11);
        byte[] value = new byte[1024];
        org.rocksdb.ColumnFamilyHandle column = ((RocksDbState) v).column();
        // Twice, flushed each time: two overlapping files, which a compaction rewrites (one it would only move).
        for (int pass = 0; pass < 2; pass++) {
            for (long k = 0; k < 2048; k++) {
                random.nextBytes(value);
                b.setCurrentKey(k);
                v.update(value);
            }
            try (org.rocksdb.FlushOptions flush = new org.rocksdb.FlushOptions().setWaitForFlush(true)) {
                b.db().flush(flush, column);
            }
        }
        b.db().compactRange(column);
        try (java.util.stream.Stream<java.nio.file.Path> files = java.nio.file.Files.list(b.directory())) {
            return files.filter(f -> f.getFileName().toString().endsWith(".sst")).count();
        }
    }

    @Test
    void closingDuringASnapshotWriteNeitherCrashesNorHangsAndReleasesSnapshotsNeverWritten() throws Exception {
        stateBackend(16L << 20);
        RocksDbKeyedStateBackend b = open("closing", "slot");
        ValueState<byte[]> v = b.getValueState(new ValueStateDescriptor<>("v", Serializers.BYTES));
        for (long k = 0; k < 50_000; k++) {
            b.setCurrentKey(k);
            v.update(new byte[100]);
        }
        KeyedStateSnapshot neverWritten = b.snapshot();
        KeyedStateSnapshot writing = b.snapshot();
        ExecutorService io = Executors.newSingleThreadExecutor();
        try {
            Future<?> write = io.submit(() -> {
                writing.writeTo(new DataOutputBuffer(1 << 20));
                return null;
            });
            // Whether the write is still running or finished when close comes, close must neither crash nor hang.
            b.close();
            try {
                write.get(30, TimeUnit.SECONDS);
            } catch (java.util.concurrent.ExecutionException e) {
                assertThat(e.getCause()).hasMessageContaining("was closed while its snapshot was being written");
            }
            assertThatThrownBy(() -> neverWritten.writeTo(new DataOutputBuffer(64)))
                    .hasMessageContaining("was closed");
            stateBackend.close(); // waits for the closer
            assertThat(Files.exists(b.directory())).as("the local directory is deleted").isFalse();
        } finally {
            io.shutdownNow();
        }
    }

    @Test
    void aSnapshotIsConsistentWhileTheTaskGoesOnWriting() throws Exception {
        stateBackend(16L << 20);
        RocksDbKeyedStateBackend b = open("consistent", "slot");
        ValueState<Long> v = b.getValueState(new ValueStateDescriptor<>("v", Serializers.LONG));
        ListState<Long> l = b.getListState(new ListStateDescriptor<>("l", Serializers.LONG));
        MapState<Long, Long> m = b.getMapState(new MapStateDescriptor<>("m", Serializers.LONG, Serializers.LONG));
        for (long k = 0; k < 5_000; k++) {
            b.setCurrentKey(k);
            v.update(k);
            l.add(k);
            m.put(k, k);
        }
        KeyedStateSnapshot snapshot = b.snapshot();
        ExecutorService io = Executors.newSingleThreadExecutor();
        try {
            Future<byte[]> bytes = io.submit(() -> {
                DataOutputBuffer out = new DataOutputBuffer(1 << 16);
                snapshot.writeTo(out);
                return out.toByteArray();
            });
            for (long k = 0; k < 5_000; k++) { // concurrently with the write
                b.setCurrentKey(k);
                v.update(-k);
                l.add(-k);
                m.put(-k, -k);
            }
            RocksDbKeyedStateBackend restored = open("restored", "slot");
            restored.restore(List.of(new DataInputBuffer(bytes.get(30, TimeUnit.SECONDS))));
            ValueState<Long> rv = restored.getValueState(new ValueStateDescriptor<>("v", Serializers.LONG));
            ListState<Long> rl = restored.getListState(new ListStateDescriptor<>("l", Serializers.LONG));
            MapState<Long, Long> rm = restored.getMapState(new MapStateDescriptor<>("m", Serializers.LONG, Serializers.LONG));
            for (long k = 0; k < 5_000; k++) {
                restored.setCurrentKey(k);
                assertThat(rv.value()).isEqualTo(k);
                assertThat(rl.get()).containsExactly(k);
                assertThat(rm.keys()).containsExactly(k);
            }
        } finally {
            io.shutdownNow();
        }
    }
}
