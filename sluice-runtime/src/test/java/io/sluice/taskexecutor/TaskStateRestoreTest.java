package io.sluice.taskexecutor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sluice.api.state.ValueStateDescriptor;
import io.sluice.checkpoint.CheckpointStorage;
import io.sluice.checkpoint.StateRestoreException;
import io.sluice.checkpoint.TaskStateHandle;
import io.sluice.core.serialization.DataOutputBuffer;
import io.sluice.core.serialization.Serializers;
import io.sluice.graph.JobId;
import io.sluice.protocol.TaskRestore;
import io.sluice.state.HeapKeyedStateBackend;
import io.sluice.state.IncrementalKeyedStateSnapshot;
import io.sluice.state.IncrementalStateHandle;
import io.sluice.state.KeyGroupRange;
import io.sluice.state.KeyGroups;
import io.sluice.state.KeyedStateBackend;
import io.sluice.storage.LocalFileBlobStore;
import io.sluice.util.ManualClock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Where a restoring subtask's keyed state comes from (inline, its task-local copy, checkpoint
 * storage, counted by the storage's own request meter), what an unusable state file fails with,
 * and that the backend comes from the injected factory. Task thread: the test thread.
 */
class TaskStateRestoreTest {
    private static final String TASK = "Count (1/1)";
    private static final ValueStateDescriptor<Long> COUNT = new ValueStateDescriptor<>("count", Serializers.LONG);
    private static final KeyGroupRange RANGE = KeyGroups.rangeForSubtask(0, 128, 1);

    @TempDir
    Path root;

    private final JobId jobId = JobId.generate();
    private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
    private final TaskThread taskThread = TaskThread.current(TASK);
    private final TaskLocalStateStore localCopies = new TaskLocalStateStore();
    private final SubtaskLocalState localState = new SubtaskLocalState(localCopies, jobId, 3, 0);
    private final AtomicInteger created = new AtomicInteger();
    private final KeyedStateBackendFactory countingHeap = spec -> {
        created.incrementAndGet();
        return KeyedStateBackendFactory.heap().create(spec);
    };

    @AfterEach
    void deleteLocalFiles() {
        localCopies.close();
    }

    @Test
    void anotherJobsCheckpointIsTheRestoredFromOfTheOperatorsAndTheJobsOwnIsNot() {
        io.sluice.protocol.TaskRestore other = new io.sluice.protocol.TaskRestore(12, null, List.of(), false, List.of(),
                List.of(), "0123456789abcdef0123456789abcdef");
        TaskStateRestore fromOther = new TaskStateRestore(TASK, other, storage(), localState, taskThread);

        assertThat(fromOther.restoredFrom(jobId.value()))
                .isEqualTo(new io.sluice.api.functions.RestoredCheckpoint("0123456789abcdef0123456789abcdef", 12));
        assertThat(fromOther.restoredFrom("0123456789abcdef0123456789abcdef")).as("a restart of that job").isNull();
        assertThat(new TaskStateRestore(TASK, null, storage(), localState, taskThread).restoredFrom(jobId.value()))
                .as("a fresh start").isNull();
    }

    @Test
    void inlineStateIsRestoredWithoutReadingStorage() {
        CheckpointStorage storage = storage();
        TaskStateHandle handle = TaskStateHandle.inline(3, 0, snapshotWithCount(11), null, RANGE);

        KeyedStateBackend backend = restore(storage, handle, 4).keyedStateBackend(countingHeap, spec());

        assertThat(countOf(backend, "a")).isEqualTo(11L);
        assertThat(stateReads()).isZero();
        assertThat(created).hasValue(1);
    }

    @Test
    void theTaskLocalCopyIsPreferredToTheStateFile() {
        CheckpointStorage storage = storage();
        byte[] state = snapshotWithCount(12);
        String file = storage.writeTaskState(jobId, 4, 3, 0, state);
        localCopies.store(jobId, 3, 0, 4, file, state);

        KeyedStateBackend backend = restore(storage, new TaskStateHandle(3, 0, file, state.length, null, RANGE), 4)
                .keyedStateBackend(countingHeap, spec());

        assertThat(countOf(backend, "a")).isEqualTo(12L);
        assertThat(stateReads()).isZero();
        assertThat(localCopies.hits()).isEqualTo(1);
    }

    @Test
    void aSnapshotTooLargeForAnInMemoryCopyIsRestoredFromItsTaskLocalFileWithoutReadingStorage() throws Exception {
        CheckpointStorage storage = storage();
        byte[] state = snapshotWithCount(16);
        Path spilled = framed(root.resolve("spilled-snapshot"), state);
        String file = storage.streams().writeFramedTaskState(jobId, 4, 3, 0, spilled);
        localState.storeFile(4, file, spilled);
        Files.delete(spilled); // as the spilling output does after the upload
        Files.delete(root.resolve(file)); // storage could not serve it now

        KeyedStateBackend backend = restore(storage, new TaskStateHandle(3, 0, file, state.length, null, RANGE), 4)
                .keyedStateBackend(countingHeap, spec());

        assertThat(countOf(backend, "a")).isEqualTo(16L);
        assertThat(stateReads()).isZero();
        assertThat(localCopies.hits()).isEqualTo(1);
        assertThat(localCopies.misses()).isZero();
        assertThat(localCopies.localFiles(jobId, 3, 0)).as("the restore's link is gone, the copy stays").hasSize(1);
    }

    @Test
    void aTaskLocalFileWithADamagedHeaderIsPassedOverForStorage() throws Exception {
        CheckpointStorage storage = storage();
        byte[] state = snapshotWithCount(17);
        Path spilled = framed(root.resolve("spilled-snapshot"), state);
        String file = storage.streams().writeFramedTaskState(jobId, 4, 3, 0, spilled);
        Files.delete(root.resolve(file)); // the stored file must not share the damage: a copy, not a link
        storage.writeTaskState(jobId, 4, 3, 0, state);
        localState.storeFile(4, file, spilled);
        try (java.nio.channels.FileChannel ch = java.nio.channels.FileChannel.open(spilled,
                java.nio.file.StandardOpenOption.WRITE)) {
            ch.write(java.nio.ByteBuffer.wrap(new byte[] {0, 0, 0, 0}), 0); // the marker of the kept (linked) file
        }
        Files.delete(spilled);

        KeyedStateBackend backend = restore(storage, new TaskStateHandle(3, 0, file, state.length, null, RANGE), 4)
                .keyedStateBackend(countingHeap, spec());

        assertThat(countOf(backend, "a")).isEqualTo(17L);
        assertThat(stateReads()).as("read from storage instead").isEqualTo(1);
    }

    /** {@code payload} as a spilled snapshot's file: framed as a state file. */
    private static Path framed(Path file, byte[] payload) throws java.io.IOException {
        try (java.io.OutputStream out = Files.newOutputStream(file)) {
            io.sluice.checkpoint.FramedStateFile.reserveHeader(out);
            out.write(payload);
        }
        java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
        crc.update(payload);
        io.sluice.checkpoint.FramedStateFile.finish(file, payload.length, (int) crc.getValue());
        return file;
    }

    @Test
    void withoutALocalCopyTheStateFileIsRead() {
        CheckpointStorage storage = storage();
        byte[] state = snapshotWithCount(13);
        String file = storage.writeTaskState(jobId, 4, 3, 0, state);

        KeyedStateBackend backend = restore(storage, new TaskStateHandle(3, 0, file, state.length, null, RANGE), 4)
                .keyedStateBackend(countingHeap, spec());

        assertThat(countOf(backend, "a")).isEqualTo(13L);
        assertThat(stateReads()).isEqualTo(1);
    }

    @Test
    void aStateFileOfAnotherSizeThanTheMetadataSaysFailsNamingCheckpointAndFile() {
        CheckpointStorage storage = storage();
        byte[] state = snapshotWithCount(14);
        String file = storage.writeTaskState(jobId, 4, 3, 0, state);
        TaskStateHandle handle = new TaskStateHandle(3, 0, file, state.length + 1, null, RANGE);

        assertThatThrownBy(() -> restore(storage, handle, 4).keyedStateBackend(countingHeap, spec()))
                .isInstanceOf(StateRestoreException.class)
                .hasMessageContaining(TASK).hasMessageContaining("4").hasMessageContaining(file);
    }

    @Test
    void aCorruptStateFileFailsAsAnUnusableSnapshot() throws Exception {
        CheckpointStorage storage = storage();
        byte[] state = snapshotWithCount(15);
        String file = storage.writeTaskState(jobId, 4, 3, 0, state);
        Path onDisk = root.resolve(file);
        byte[] bytes = Files.readAllBytes(onDisk);
        bytes[bytes.length / 2] ^= 0x5a;
        Files.write(onDisk, bytes);

        assertThatThrownBy(() -> restore(storage, new TaskStateHandle(3, 0, file, state.length, null, RANGE), 4)
                .keyedStateBackend(countingHeap, spec()))
                .isInstanceOf(StateRestoreException.class).hasMessageContaining(file);
    }

    @Test
    void aStateFileWhoseChecksumFailsAtItsEndIsUnusableAndThePartlyRestoredBackendIsClosed() throws Exception {
        CheckpointStorage storage = storage();
        long marker = 0x0123456789ABCDEFL;
        byte[] state = snapshotWithCount(marker);
        String file = storage.writeTaskState(jobId, 4, 3, 0, state);
        Path onDisk = root.resolve(file);
        byte[] bytes = Files.readAllBytes(onDisk);
        int at = indexOf(bytes, java.nio.ByteBuffer.allocate(8).putLong(marker).array());
        assertThat(at).as("the value's bytes are in the file").isPositive();
        bytes[at + 7] ^= 0x01; // still a valid long: only the checksum at the end of the stream can tell
        Files.write(onDisk, bytes);
        java.util.List<String> closed = new java.util.ArrayList<>();
        KeyedStateBackendFactory recordingClose = spec -> {
            KeyedStateBackend heap = KeyedStateBackendFactory.heap().create(spec);
            return (KeyedStateBackend) java.lang.reflect.Proxy.newProxyInstance(getClass().getClassLoader(),
                    new Class<?>[] {KeyedStateBackend.class}, (proxy, method, args) -> {
                        if (method.getName().equals("close")) {
                            closed.add(spec.taskName());
                        }
                        try {
                            return method.invoke(heap, args);
                        } catch (java.lang.reflect.InvocationTargetException e) {
                            throw e.getCause();
                        }
                    });
        };

        assertThatThrownBy(() -> restore(storage, new TaskStateHandle(3, 0, file, state.length, null, RANGE), 4)
                .keyedStateBackend(recordingClose, spec()))
                .isInstanceOf(StateRestoreException.class).hasMessageContaining(file).hasMessageContaining("checksum");
        assertThat(closed).as("the backend the restore had begun to fill is closed").containsExactly(TASK);
    }

    private static int indexOf(byte[] haystack, byte[] needle) {
        for (int i = 0; i + needle.length <= haystack.length; i++) {
            if (java.util.Arrays.equals(haystack, i, i + needle.length, needle, 0, needle.length)) {
                return i;
            }
        }
        return -1;
    }

    @Test
    void aFreshStartGetsAnEmptyBackendAndNoRestoredCheckpoint() {
        TaskStateRestore fresh = new TaskStateRestore(TASK, null, storage(), localState, taskThread);

        KeyedStateBackend backend = fresh.keyedStateBackend(countingHeap, spec());

        assertThat(backend.numberOfKeys()).isZero();
        assertThat(fresh.restoredCheckpointId()).isEmpty();
        assertThat(fresh.restoredAsFinished()).isFalse();
        assertThat(created).hasValue(1);
    }

    @Test
    void theRestoredCheckpointAndAFinishedSubtaskAreKnown() {
        TaskStateRestore finished = new TaskStateRestore(TASK, new TaskRestore(9, null, List.of(), true), storage(),
                localState, taskThread);

        assertThat(finished.restoredCheckpointId()).hasValue(9);
        assertThat(finished.restoredAsFinished()).isTrue();
    }

    @Test
    void rocksDbFilesComeFromTheTaskLocalFilesOfTheirUploadWithoutReadingStorage() throws Exception {
        CheckpointStorage storage = storage();
        IncrementalStateHandle uploaded = localState.upload(4, new FileSnapshot(List.of(), "1.sst", "MANIFEST-1"),
                new StorageCheckpointFiles(storage, jobId, 4, 3, 0, new UploadedFiles()));
        assertThat(localCopies.localFiles(jobId, 3, 0)).hasSize(2);

        DownloadingBackend backend = new DownloadingBackend(root.resolve("restore"));
        restoreIncremental(storage, uploaded, 4, true).keyedStateBackend(spec -> backend, spec());

        assertThat(backend.contents).containsOnly(java.util.Map.entry("1.sst", "1.sst of 4"),
                java.util.Map.entry("MANIFEST-1", "MANIFEST-1 of 4"));
        assertThat(stateReads()).isZero();
        assertThat(localCopies.hits()).isEqualTo(2);
        assertThat(localCopies.misses()).isZero();
    }

    @Test
    void rocksDbTableFilesReadFromStorageAreKeptForTheCheckpointsThatReferToThem() throws Exception {
        CheckpointStorage storage = storage();
        // Uploaded by a subtask that kept nothing (e.g. on another task executor).
        IncrementalStateHandle uploaded = new SubtaskLocalState(null, jobId, 3, 0).upload(4,
                new FileSnapshot(List.of(), "1.sst", "MANIFEST-1"), new StorageCheckpointFiles(storage, jobId, 4, 3, 0, new UploadedFiles()));

        restoreIncremental(storage, uploaded, 4, true).keyedStateBackend(
                spec -> new DownloadingBackend(root.resolve("restore-1")), spec());
        assertThat(stateReads()).isEqualTo(2);
        assertThat(localCopies.localFiles(jobId, 3, 0)).as("the table file, not the manifest").hasSize(1);

        // The next checkpoint refers to the restored table file: it has its local file.
        IncrementalStateHandle next = localState.upload(5, new FileSnapshot(uploaded.sharedFiles(), "MANIFEST-2"),
                new StorageCheckpointFiles(storage, jobId, 5, 3, 0, new UploadedFiles()));
        DownloadingBackend backend = new DownloadingBackend(root.resolve("restore-2"));
        restoreIncremental(storage, next, 5, true).keyedStateBackend(spec -> backend, spec());
        assertThat(stateReads()).as("nothing more read").isEqualTo(2);
        assertThat(backend.contents).containsOnly(java.util.Map.entry("1.sst", "1.sst of 4"),
                java.util.Map.entry("MANIFEST-2", "MANIFEST-2 of 5"));

        // Another job's checkpoint (restore-from) is not kept: no checkpoint of this job refers to its files.
        localCopies.discard(jobId, 3, 0);
        restoreIncremental(storage, uploaded, 4, false).keyedStateBackend(
                spec -> new DownloadingBackend(root.resolve("restore-3")), spec());
        assertThat(localCopies.localFiles(jobId, 3, 0)).isEmpty();
    }

    // ------------------------------------------------------------------ helpers

    private TaskStateRestore restoreIncremental(CheckpointStorage storage, IncrementalStateHandle handle,
                                                long checkpointId, boolean ownCheckpoint) {
        return new TaskStateRestore(TASK, new TaskRestore(checkpointId, null,
                List.of(TaskStateHandle.incremental(3, 0, handle, null)), false, List.of(), List.of(),
                ownCheckpoint ? jobId.value() : "0123456789abcdef0123456789abcdef"), storage, localState, taskThread);
    }

    /** An incremental snapshot of new files (written now, "NAME of ID") and table files of earlier checkpoints. */
    private final class FileSnapshot implements IncrementalKeyedStateSnapshot {
        private final List<IncrementalStateHandle.StateFile> earlier;
        private final String[] newFiles;

        FileSnapshot(List<IncrementalStateHandle.StateFile> earlier, String... newFiles) {
            this.earlier = earlier;
            this.newFiles = newFiles;
        }

        @Override
        public IncrementalStateHandle upload(io.sluice.state.CheckpointFiles files) {
            try {
                Path dir = Files.createTempDirectory(root, "snapshot");
                List<IncrementalStateHandle.StateFile> shared = new java.util.ArrayList<>(earlier);
                List<IncrementalStateHandle.StateFile> own = new java.util.ArrayList<>();
                long id = newFiles[0].startsWith("MANIFEST-2") ? 5 : 4;
                for (String name : newFiles) {
                    Path file = Files.writeString(dir.resolve(name), name + " of " + id);
                    IncrementalStateHandle.StateFile f = new IncrementalStateHandle.StateFile(name, name.endsWith(".sst")
                            ? files.uploadShared(file, name) : files.uploadPrivate(file, name), Files.size(file));
                    (name.endsWith(".sst") ? shared : own).add(f);
                }
                return new IncrementalStateHandle(RANGE, 128, new byte[0], shared, own);
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }

        @Override
        public void discard() {
        }

        @Override
        public void writeTo(io.sluice.state.KeyedSnapshotOutput out) {
            throw new UnsupportedOperationException("these tests restore RocksDB's files, never a canonical snapshot");
        }
    }

    /** A heap backend that restores RocksDB's files by downloading them and reading what they say. */
    private static final class DownloadingBackend implements KeyedStateBackend {
        private final HeapKeyedStateBackend heap = new HeapKeyedStateBackend(RANGE, 128, Serializers.STRING);
        private final Path dir;
        final java.util.Map<String, String> contents = new java.util.TreeMap<>();

        DownloadingBackend(Path dir) {
            this.dir = dir;
        }

        @Override
        public void restoreIncremental(List<IncrementalStateHandle> handles, io.sluice.state.CheckpointFiles files) {
            try {
                Files.createDirectories(dir);
                for (IncrementalStateHandle h : handles) {
                    for (IncrementalStateHandle.StateFile f : h.sharedFiles()) {
                        files.download(f.path(), dir.resolve(f.localName()));
                        contents.put(f.localName(), Files.readString(dir.resolve(f.localName())));
                    }
                    for (IncrementalStateHandle.StateFile f : h.privateFiles()) {
                        files.download(f.path(), dir.resolve(f.localName()));
                        contents.put(f.localName(), Files.readString(dir.resolve(f.localName())));
                    }
                }
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }

        @Override
        public void setCurrentKey(Object key) {
            heap.setCurrentKey(key);
        }

        @Override
        public Object currentKey() {
            return heap.currentKey();
        }

        @Override
        public KeyGroupRange keyGroupRange() {
            return heap.keyGroupRange();
        }

        @Override
        public <T> io.sluice.api.state.ValueState<T> getValueState(ValueStateDescriptor<T> descriptor) {
            return heap.getValueState(descriptor);
        }

        @Override
        public <T> io.sluice.api.state.ListState<T> getListState(
                io.sluice.api.state.ListStateDescriptor<T> descriptor) {
            return heap.getListState(descriptor);
        }

        @Override
        public <K, V> io.sluice.api.state.MapState<K, V> getMapState(
                io.sluice.api.state.MapStateDescriptor<K, V> descriptor) {
            return heap.getMapState(descriptor);
        }

        @Override
        public List<Object> keysOf(String stateName) {
            return heap.keysOf(stateName);
        }

        @Override
        public long numberOfKeys() {
            return heap.numberOfKeys();
        }

        @Override
        public io.sluice.state.KeyedStateSnapshot snapshot() {
            return heap.snapshot();
        }

        @Override
        public void restoreFrom(List<io.sluice.state.KeyedSnapshotInput> snapshots) {
            heap.restoreFrom(snapshots);
        }
    }

    private TaskStateRestore restore(CheckpointStorage storage, TaskStateHandle handle, long checkpointId) {
        return new TaskStateRestore(TASK, new TaskRestore(checkpointId, null, List.of(handle)), storage, localState,
                taskThread);
    }

    private KeyedStateBackendSpec spec() {
        return new KeyedStateBackendSpec(TASK, jobId, null, 3, 0, RANGE, 128, Serializers.STRING,
                getClass().getClassLoader(), new ManualClock());
    }

    private CheckpointStorage storage() {
        return new CheckpointStorage(new LocalFileBlobStore(root), meters);
    }

    private double stateReads() {
        return meters.get(CheckpointStorage.REQUESTS_METRIC).tag("kind", "state_read").counter().count();
    }

    private static byte[] snapshotWithCount(long count) {
        HeapKeyedStateBackend backend = new HeapKeyedStateBackend(RANGE, 128, Serializers.STRING);
        backend.setCurrentKey("a");
        backend.getValueState(COUNT).update(count);
        DataOutputBuffer out = new DataOutputBuffer(256);
        backend.snapshot().writeTo(out);
        return out.toByteArray();
    }

    private static Long countOf(KeyedStateBackend backend, String key) {
        backend.setCurrentKey(key);
        return backend.getValueState(COUNT).value();
    }
}
