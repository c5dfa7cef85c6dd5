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
import io.sluice.core.serialization.DataInputBuffer;
import io.sluice.core.serialization.DataOutputBuffer;
import io.sluice.core.serialization.Serializers;
import io.sluice.state.HeapKeyedStateBackend;
import io.sluice.state.IncrementalKeyedStateSnapshot;
import io.sluice.state.IncrementalStateHandle;
import io.sluice.state.IncrementalStateRestoreException;
import io.sluice.state.KeyGroupRange;
import io.sluice.state.KeyGroups;
import io.sluice.state.KeyedStateBackend;
import io.sluice.state.KeyedStateBackendParameters;
import io.sluice.util.ManualClock;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * RocksDB's incremental checkpoints at the backend: only new table files are uploaded, only
 * confirmed checkpoints' files are referred to, and the files restore (whole, clipped to fewer key
 * groups, or merged from several) into exact state; another backend refuses them clearly.
 */
class RocksDbIncrementalCheckpointTest {
    private static final int MAX_PARALLELISM = 32;
    private static final KeyGroupRange ALL = KeyGroupRange.of(0, MAX_PARALLELISM - 1);

    @TempDir
    Path dir;
    private RocksDbStateBackend stateBackend;
    private final List<KeyedStateBackend> opened = new ArrayList<>();

    /** Checkpoint storage on a local directory, counting what is uploaded. */
    class LocalFiles extends LocalCheckpointFiles {
        LocalFiles() {
            super(dir.resolve("storage"));
        }
    }


    @AfterEach
    void close() {
        opened.forEach(KeyedStateBackend::close);
        if (stateBackend != null) {
            stateBackend.close();
        }
    }

    private RocksDbKeyedStateBackend open(KeyGroupRange range) {
        return open(range, new Configuration());
    }

    private RocksDbKeyedStateBackend open(KeyGroupRange range, Configuration configuration) {
        if (stateBackend == null) {
            stateBackend = new RocksDbStateBackend(configuration
                    .set(RocksDbOptions.LOCAL_DIR, dir.resolve("local").toString()));
        }
        RocksDbKeyedStateBackend b = (RocksDbKeyedStateBackend) stateBackend.createKeyedStateBackend(
                new KeyedStateBackendParameters("task " + opened.size(), "slot", range, MAX_PARALLELISM,
                        Serializers.LONG, new ManualClock(0), true));
        opened.add(b);
        return b;
    }

    private static void write(KeyedStateBackend b, long fromKey, long toKey, long version) {
        ValueState<Long> v = b.getValueState(new ValueStateDescriptor<>("v", Serializers.LONG));
        ListState<Long> l = b.getListState(new ListStateDescriptor<>("l", Serializers.LONG));
        MapState<Long, String> m = b.getMapState(new MapStateDescriptor<>("m", Serializers.LONG, Serializers.STRING));
        for (long k = fromKey; k < toKey; k++) {
            if (!b.keyGroupRange().contains(KeyGroups.keyGroupFor(k, MAX_PARALLELISM))) {
                continue;
            }
            b.setCurrentKey(k);
            v.update(k * 10 + version);
            l.update(List.of(k, version));
            m.put(version, "v" + k);
        }
    }

    private static void check(KeyedStateBackend b, long fromKey, long toKey, long version) {
        ValueState<Long> v = b.getValueState(new ValueStateDescriptor<>("v", Serializers.LONG));
        ListState<Long> l = b.getListState(new ListStateDescriptor<>("l", Serializers.LONG));
        MapState<Long, String> m = b.getMapState(new MapStateDescriptor<>("m", Serializers.LONG, Serializers.STRING));
        long n = 0;
        for (long k = fromKey; k < toKey; k++) {
            if (!b.keyGroupRange().contains(KeyGroups.keyGroupFor(k, MAX_PARALLELISM))) {
                continue;
            }
            b.setCurrentKey(k);
            assertThat(v.value()).as("key %d", k).isEqualTo(k * 10 + version);
            assertThat(l.get()).containsExactly(k, version);
            assertThat(m.get(version)).isEqualTo("v" + k);
            n++;
        }
        assertThat(b.keysOf("v")).as("no keys of other groups").hasSize((int) n);
    }

    private static IncrementalStateHandle checkpoint(KeyedStateBackend b, long id, LocalFiles files) {
        IncrementalKeyedStateSnapshot s = (IncrementalKeyedStateSnapshot) b.checkpointSnapshot(id);
        return s.upload(files);
    }

    @Test
    void aCheckpointUploadsOnlyTheTableFilesNoConfirmedCheckpointUploaded() {
        RocksDbKeyedStateBackend b = open(ALL);
        LocalFiles files = new LocalFiles();
        write(b, 0, 20_000, 1);
        IncrementalStateHandle first = checkpoint(b, 1, files);
        int firstUploads = files.sharedUploads.size();
        long firstBytes = files.uploadedBytes;
        assertThat(first.sharedFiles()).hasSize(firstUploads).isNotEmpty();
        b.notifyCheckpointComplete(1);

        write(b, 0, 200, 2); // a small change
        long before = files.uploadedBytes;
        IncrementalStateHandle second = checkpoint(b, 2, files);
        long secondBytes = files.uploadedBytes - before;
        System.out.printf("first checkpoint %d bytes in %d table files; second (200 of 20000 keys changed) uploaded %d"
                + " bytes, %d new table files, refers to %d%n", firstBytes, firstUploads, secondBytes,
                files.sharedUploads.size() - firstUploads, second.sharedFiles().size());
        assertThat(second.sharedFiles()).as("the first checkpoint's table files are referred to")
                .containsAll(first.sharedFiles());
        assertThat(files.sharedUploads.size() - firstUploads)
                .as("one new table file per state (each column family flushes its change)").isEqualTo(3);
        assertThat(secondBytes).as("upload proportional to the change").isLessThan(firstBytes / 10);
        assertThat(b.lastUploadedBytes()).isEqualTo(secondBytes);

        // Not confirmed: the third checkpoint must not refer to the second's new file... it was never confirmed.
        write(b, 200, 400, 3);
        IncrementalStateHandle third = checkpoint(b, 3, files);
        List<IncrementalStateHandle.StateFile> newInSecond = new ArrayList<>(second.sharedFiles());
        newInSecond.removeAll(first.sharedFiles());
        assertThat(third.sharedFiles()).as("an unconfirmed checkpoint's upload is not reused")
                .doesNotContainAnyElementsOf(newInSecond);
    }

    /**
     * Storage whose first two uploads (or downloads) wait for each other: they meet only if they run at the same
     * time.
     */
    final class MeetingFiles extends LocalFiles {
        final CyclicBarrier firstTwo = new CyclicBarrier(2);
        final AtomicInteger calls = new AtomicInteger();
        final Set<String> threads = ConcurrentHashMap.newKeySet();
        final Set<ClassLoader> helperContextLoaders = ConcurrentHashMap.newKeySet();

        @Override
        public String uploadShared(Path file, String localName) {
            meet();
            return super.uploadShared(file, localName);
        }

        @Override
        public String uploadPrivate(Path file, String localName) {
            meet();
            return super.uploadPrivate(file, localName);
        }

        @Override
        public void download(String path, Path target) {
            meet();
            super.download(path, target);
        }

        private void meet() {
            threads.add(Thread.currentThread().getName());
            if (Thread.currentThread().getName().startsWith("sluice-rocksdb-transfer-")) {
                helperContextLoaders.add(Thread.currentThread().getContextClassLoader());
            }
            if (calls.incrementAndGet() <= 2) {
                try {
                    firstTwo.await(10, TimeUnit.SECONDS);
                } catch (Exception e) {
                    throw new IllegalStateException("the first two uploads did not run at the same time", e);
                }
            }
        }
    }

    @Test
    void aCheckpointUploadsAndARestoreDownloadsSeveralFilesAtATimeByDefault() throws Exception {
        RocksDbKeyedStateBackend b = open(ALL);
        write(b, 0, 20_000, 1);
        MeetingFiles files = new MeetingFiles();

        // Uploaded from a thread whose context class loader is a job's (a task thread's): the pool's helper
        // threads, created now and kept after the job, must not keep that loader (and every class of the job).
        IncrementalStateHandle handle;
        ClassLoader before = Thread.currentThread().getContextClassLoader();
        try (java.net.URLClassLoader jobLoader = new java.net.URLClassLoader(new java.net.URL[0], before)) {
            Thread.currentThread().setContextClassLoader(jobLoader);
            handle = checkpoint(b, 1, files);
        } finally {
            Thread.currentThread().setContextClassLoader(before);
        }

        assertThat(files.threads).as("the upload's own thread and helpers").hasSizeGreaterThan(1)
                .anyMatch(t -> t.startsWith("sluice-rocksdb-transfer-"));
        assertThat(files.helperContextLoaders).as("the helpers' context class loader: Sluice's, not the job's")
                .containsExactly(RocksDbStateBackend.class.getClassLoader());
        assertThat(handle.sharedFiles()).extracting(IncrementalStateHandle.StateFile::localName)
                .as("listed in the order of their names").isSorted().hasSize(files.sharedUploads.size());
        MeetingFiles downloads = new MeetingFiles();
        RocksDbKeyedStateBackend restored = open(ALL);
        restored.restoreIncremental(List.of(handle), downloads);
        check(restored, 0, 20_000, 1);
        assertThat(downloads.threads).as("the task thread and helpers").hasSizeGreaterThan(1);
    }

    @Test
    void oneTransferThreadUploadsOneFileAfterTheOther() {
        RocksDbKeyedStateBackend b = open(ALL, new Configuration().set(RocksDbOptions.TRANSFER_THREADS, 1));
        write(b, 0, 2_000, 1);
        LocalFiles files = new LocalFiles() {
            final Set<String> threads = ConcurrentHashMap.newKeySet();

            @Override
            public String uploadShared(Path file, String localName) {
                threads.add(Thread.currentThread().getName());
                assertThat(threads).containsExactly(Thread.currentThread().getName());
                return super.uploadShared(file, localName);
            }
        };

        IncrementalStateHandle handle = checkpoint(b, 1, files);

        assertThat(handle.sharedFiles()).hasSize(3); // one table file per state, each uploaded on this thread
    }

    /** The same storage, for a restore of this job's own checkpoint (a task or job-manager failover). */
    final class OwnCheckpointFiles extends LocalFiles {
        @Override
        public boolean restoringOwnCheckpoint() {
            return true;
        }
    }

    /**
     * The first checkpoint after a restore of the job's own checkpoint refers to the restored table files instead of
     * uploading them again (before, it uploaded the whole state: 4.2 GB of a 4 GB state in the large-state
     * benchmark); after a restore of another job's checkpoint, or of more key groups than this backend's (a
     * rescale), it uploads them, since this job's checkpoints must not depend on files it does not own.
     */
    @Test
    void theFirstCheckpointAfterARestoreOfTheJobsOwnCheckpointRefersToTheRestoredFiles() {
        RocksDbKeyedStateBackend b = open(ALL);
        LocalFiles files = new LocalFiles();
        write(b, 0, 20_000, 1);
        IncrementalStateHandle before = checkpoint(b, 1, files);
        b.notifyCheckpointComplete(1);

        OwnCheckpointFiles own = new OwnCheckpointFiles();
        RocksDbKeyedStateBackend restored = open(ALL);
        restored.restoreIncremental(List.of(before), own);
        assertThat(restored.openedEmpty()).as("the restore opened the restored files, no empty instance first")
                .isFalse();
        assertThat(b.openedEmpty()).as("a backend written to before any restore").isTrue();
        write(restored, 0, 200, 2); // a small change
        IncrementalStateHandle after = checkpoint(restored, 2, own);
        System.out.printf("after a restore of its own checkpoint: %d bytes, %d table files uploaded; refers to %d%n",
                own.uploadedBytes, own.sharedUploads.size(), after.sharedFiles().size());
        assertThat(after.sharedFiles()).as("the restored checkpoint's table files").containsAll(before.sharedFiles());
        assertThat(own.sharedUploads).as("only the change's table files, one per state").hasSize(3);
        restored.notifyCheckpointComplete(2);
        RocksDbKeyedStateBackend again = open(ALL);
        again.restoreIncremental(List.of(after), new LocalFiles());
        ValueState<Long> v = again.getValueState(new ValueStateDescriptor<>("v", Serializers.LONG));
        for (long k = 0; k < 20_000; k++) {
            again.setCurrentKey(k);
            assertThat(v.value()).as("key %d", k).isEqualTo(k * 10 + (k < 200 ? 2 : 1));
        }
        assertThat(again.keysOf("v")).hasSize(20_000);

        LocalFiles other = new LocalFiles(); // another job's checkpoint
        RocksDbKeyedStateBackend fromOther = open(ALL);
        fromOther.restoreIncremental(List.of(before), other);
        checkpoint(fromOther, 2, other);
        assertThat(other.sharedUploads).as("another job's files are uploaded again").hasSize(before.sharedFiles().size());

        OwnCheckpointFiles clipped = new OwnCheckpointFiles(); // half the key groups: a rescale
        RocksDbKeyedStateBackend half = open(KeyGroupRange.of(0, MAX_PARALLELISM / 2 - 1));
        half.restoreIncremental(List.of(before), clipped);
        checkpoint(half, 2, clipped);
        assertThat(clipped.sharedUploads).as("a clipped instance's files are uploaded").isNotEmpty();
    }

    /**
     * Checkpoint 2's completion reaches the task only after its snapshot for checkpoint 3 (a barrier
     * overtook the notice). Checkpoint 3 did not refer to 2's new files, so once 3 completes and subsumes
     * 2 the job manager deletes them: checkpoint 4 must not refer to them (it did before this was fixed).
     */
    @Test
    void aConfirmationThatArrivesAfterALaterSnapshotIsNotAdopted() {
        RocksDbKeyedStateBackend b = open(ALL);
        LocalFiles files = new LocalFiles();
        write(b, 0, 2_000, 1);
        IncrementalStateHandle first = checkpoint(b, 1, files);
        b.notifyCheckpointComplete(1);
        write(b, 0, 100, 2);
        IncrementalStateHandle second = checkpoint(b, 2, files);
        write(b, 100, 200, 3);
        IncrementalStateHandle third = checkpoint(b, 3, files);
        b.notifyCheckpointComplete(2); // late: the snapshot for 3 was taken already
        write(b, 200, 300, 4);
        IncrementalStateHandle fourth = checkpoint(b, 4, files);

        List<IncrementalStateHandle.StateFile> onlyInSecond = new ArrayList<>(second.sharedFiles());
        onlyInSecond.removeAll(first.sharedFiles());
        onlyInSecond.removeAll(third.sharedFiles());
        assertThat(onlyInSecond).as("checkpoint 2 uploaded files checkpoint 3 does not refer to").isNotEmpty();
        assertThat(fourth.sharedFiles()).as("none of them is referred to by 4").doesNotContainAnyElementsOf(onlyInSecond);
        for (IncrementalStateHandle.StateFile f : fourth.sharedFiles()) {
            boolean earlier = second.sharedFiles().contains(f) || third.sharedFiles().contains(f);
            assertThat(!earlier || first.sharedFiles().contains(f))
                    .as("4 refers only to 1's uploads (its confirmed checkpoint) or uploads anew: " + f).isTrue();
        }
    }

    @Test
    void theFilesRestoreWholeClippedToFewerKeyGroupsOrMergedFromSeveral() {
        RocksDbKeyedStateBackend b = open(ALL);
        LocalFiles files = new LocalFiles();
        write(b, 0, 5_000, 1);
        b.notifyCheckpointComplete(1);
        write(b, 0, 5_000, 2);
        IncrementalStateHandle handle = checkpoint(b, 2, files);

        RocksDbKeyedStateBackend whole = open(ALL);
        whole.restoreIncremental(List.of(handle), files);
        check(whole, 0, 5_000, 2);

        // 1 -> 2: each half takes the instance and drops the other half's key groups.
        List<IncrementalStateHandle> halves = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            RocksDbKeyedStateBackend half = open(KeyGroups.rangeForSubtask(i, MAX_PARALLELISM, 2));
            half.restoreIncremental(List.of(handle), files);
            check(half, 0, 5_000, 2);
            write(half, 0, 5_000, 3);
            halves.add(checkpoint(half, 3, files));
        }
        // 2 -> 1: both halves' groups copied into one (their clipped files still reach outside their ranges).
        RocksDbKeyedStateBackend merged = open(ALL);
        merged.restoreIncremental(halves, files);
        check(merged, 0, 5_000, 3);
        assertThat(merged.memtableEntries()).as("copied, entry by entry").isPositive();
        // 2 -> 3: a middle range overlaps both halves.
        RocksDbKeyedStateBackend middle = open(KeyGroups.rangeForSubtask(1, MAX_PARALLELISM, 3));
        middle.restoreIncremental(halves, files);
        check(middle, 0, 5_000, 3);
        assertThat(middle.memtableEntries()).as("copied, entry by entry").isPositive();
    }

    /**
     * 4 -> 2 and 4 -> 1: every instance's files hold only key groups of the new range, so they are imported as
     * they are; nothing goes through the memtables. With the entry-by-entry copy every restored entry did.
     */
    @Test
    void instancesWhoseKeyGroupsLieInsideTheNewRangeAreImportedAsTableFiles() {
        LocalFiles files = new LocalFiles();
        List<IncrementalStateHandle> quarters = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            RocksDbKeyedStateBackend quarter = open(KeyGroups.rangeForSubtask(i, MAX_PARALLELISM, 4));
            write(quarter, 0, 5_000, 6);
            quarters.add(checkpoint(quarter, 1, files));
        }
        for (int i = 0; i < 2; i++) {
            RocksDbKeyedStateBackend half = open(KeyGroups.rangeForSubtask(i, MAX_PARALLELISM, 2));
            half.restoreIncremental(quarters, files);
            check(half, 0, 5_000, 6);
            assertThat(half.memtableEntries()).as("imported, not re-inserted").isZero();
            write(half, 0, 5_000, 7);
            check(half, 0, 5_000, 7);
        }
        RocksDbKeyedStateBackend whole = open(ALL);
        whole.restoreIncremental(quarters, files);
        check(whole, 0, 5_000, 6);
        assertThat(whole.memtableEntries()).isZero();
        IncrementalStateHandle after = checkpoint(whole, 2, files);
        RocksDbKeyedStateBackend again = open(ALL);
        again.restoreIncremental(List.of(after), files);
        check(again, 0, 5_000, 6);
    }

    /**
     * 1 -> 2: the half that takes the instance drops the table files that hold only the other half's key groups
     * at once; range deletions alone would keep them (and the next checkpoint would upload them) until a
     * compaction.
     */
    @Test
    void clippingDropsTheTableFilesOfOtherKeyGroupsWhole() throws IOException {
        RocksDbKeyedStateBackend b = open(ALL);
        LocalFiles files = new LocalFiles();
        KeyGroupRange firstHalf = KeyGroups.rangeForSubtask(0, MAX_PARALLELISM, 2);
        List<Long> firstKeys = new ArrayList<>();
        List<Long> secondKeys = new ArrayList<>();
        for (long k = 0; k < 5_000; k++) {
            (firstHalf.contains(KeyGroups.keyGroupFor(k, MAX_PARALLELISM)) ? firstKeys : secondKeys).add(k);
        }
        writeKeys(b, firstKeys);
        b.compactKeyGroups(firstHalf); // the first half's keys in their own files, below level 0
        writeKeys(b, secondKeys);
        b.compactKeyGroups(KeyGroups.rangeForSubtask(1, MAX_PARALLELISM, 2));
        IncrementalStateHandle handle = checkpoint(b, 1, files);
        assertThat(tableFiles(b)).as("two files per state, one per half").isEqualTo(6);

        RocksDbKeyedStateBackend second = open(KeyGroups.rangeForSubtask(1, MAX_PARALLELISM, 2));
        second.restoreIncremental(List.of(handle), files);
        assertThat(tableFiles(second)).as("the first half's files are gone").isEqualTo(3);
        ValueState<Long> v = second.getValueState(new ValueStateDescriptor<>("v", Serializers.LONG));
        for (long k : secondKeys) {
            second.setCurrentKey(k);
            assertThat(v.value()).isEqualTo(k);
        }
        assertThat(second.keysOf("v")).hasSize(secondKeys.size());
    }

    private static void writeKeys(KeyedStateBackend b, List<Long> keys) {
        ValueState<Long> v = b.getValueState(new ValueStateDescriptor<>("v", Serializers.LONG));
        ListState<Long> l = b.getListState(new ListStateDescriptor<>("l", Serializers.LONG));
        MapState<Long, String> m = b.getMapState(new MapStateDescriptor<>("m", Serializers.LONG, Serializers.STRING));
        for (long k : keys) {
            b.setCurrentKey(k);
            v.update(k);
            l.update(List.of(k));
            m.put(k, "v" + k);
        }
    }

    private static long tableFiles(RocksDbKeyedStateBackend b) throws IOException {
        try (var files = Files.list(b.directory())) {
            return files.filter(p -> p.getFileName().toString().endsWith(".sst")).count();
        }
    }

    /**
     * One restore with both kinds of instance: two quarters written for their own ranges are imported, a half
     * clipped out of a whole instance is copied into the same column families afterwards.
     */
    @Test
    void importedAndCopiedInstancesMergeIntoOneState() {
        LocalFiles files = new LocalFiles();
        RocksDbKeyedStateBackend b = open(ALL);
        write(b, 0, 5_000, 8);
        IncrementalStateHandle whole = checkpoint(b, 1, files);
        RocksDbKeyedStateBackend clipped = open(KeyGroups.rangeForSubtask(1, MAX_PARALLELISM, 2));
        clipped.restoreIncremental(List.of(whole), files);
        List<IncrementalStateHandle> handles = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            RocksDbKeyedStateBackend quarter = open(KeyGroups.rangeForSubtask(i, MAX_PARALLELISM, 4));
            write(quarter, 0, 5_000, 8);
            handles.add(checkpoint(quarter, 1, files));
        }
        handles.add(checkpoint(clipped, 2, files));

        RocksDbKeyedStateBackend merged = open(ALL);
        merged.restoreIncremental(handles, files);
        check(merged, 0, 5_000, 8);
        int halfKeys = 0;
        for (long k = 0; k < 5_000; k++) {
            halfKeys += clipped.keyGroupRange().contains(KeyGroups.keyGroupFor(k, MAX_PARALLELISM)) ? 1 : 0;
        }
        assertThat(merged.memtableEntries()).as("only the clipped half's entries, once per state")
                .isEqualTo(3L * halfKeys);
    }

    @Test
    void anIncrementalSnapshotAlsoWritesTheCanonicalFormatAndTheHeapRefusesRocksDbsFiles() {
        RocksDbKeyedStateBackend b = open(ALL);
        write(b, 0, 1_000, 4);
        DataOutputBuffer canonical = new DataOutputBuffer(1024);
        b.checkpointSnapshot(1).writeTo(canonical);
        HeapKeyedStateBackend heap = new HeapKeyedStateBackend(ALL, MAX_PARALLELISM, Serializers.LONG);
        heap.restore(List.of(new DataInputBuffer(canonical.toByteArray())));
        check(heap, 0, 1_000, 4);

        IncrementalStateHandle handle = checkpoint(b, 2, new LocalFiles());
        assertThatThrownBy(() -> new HeapKeyedStateBackend(ALL, MAX_PARALLELISM).restoreIncremental(List.of(handle),
                new LocalFiles())).isInstanceOf(IncrementalStateRestoreException.class)
                .hasMessageContaining("restore it with state.backend: rocksdb");
    }

    @Test
    void anotherMaxParallelismIsRefusedBeforeAnythingIsDownloaded() {
        RocksDbKeyedStateBackend b = open(ALL);
        write(b, 0, 100, 1);
        LocalFiles files = new LocalFiles();
        IncrementalStateHandle handle = checkpoint(b, 1, files);
        IncrementalStateHandle other = new IncrementalStateHandle(handle.keyGroupRange(), 64, handle.stateMetaData(),
                handle.sharedFiles(), handle.privateFiles());
        assertThatThrownBy(() -> open(ALL).restoreIncremental(List.of(other), files))
                .isInstanceOf(io.sluice.api.errors.MaxParallelismMismatchException.class)
                .hasMessageContaining("max parallelism 64");
    }
}
