package io.sluice.taskexecutor;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sluice.api.functions.Collector;
import io.sluice.api.sink.SinkUnavailableException;
import io.sluice.api.source.SourceReader;
import io.sluice.api.state.ValueState;
import io.sluice.api.state.ValueStateDescriptor;
import io.sluice.checkpoint.CheckpointException;
import io.sluice.checkpoint.CheckpointFailureReason;
import io.sluice.checkpoint.CheckpointStorage;
import io.sluice.checkpoint.TaskStateHandle;
import io.sluice.core.serialization.DataInputBuffer;
import io.sluice.core.serialization.Serializers;
import io.sluice.graph.JobId;
import io.sluice.job.ExecutionAttemptId;
import io.sluice.network.Buffer;
import io.sluice.network.CheckpointBarrier;
import io.sluice.network.LocalChannel;
import io.sluice.network.Partitioner;
import io.sluice.network.RecordWriter;
import io.sluice.operators.RecordTimestamp;
import io.sluice.state.HeapKeyedStateBackend;
import io.sluice.state.KeyGroups;
import io.sluice.storage.LocalFileBlobStore;
import io.sluice.storage.StorageException;
import io.sluice.testutil.ManualExecutorService;
import io.sluice.util.ManualClock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A subtask's checkpoints, with the test thread as the task thread and a manually triggered I/O
 * executor: what happens at the barrier (operators, snapshot, barrier downstream) before any I/O,
 * what the job master hears once the upload ran (inline, state file with a local copy, a decline
 * naming the storage error), abandoned alignments, and the notices to the operators. Before the
 * split these were seen only through ExactlyOnceITCase and TaskLocalRecoveryITCase, with real
 * threads.
 */
class SubtaskCheckpointerTest {
    private static final String TASK = "Count (1/1)";
    private static final ValueStateDescriptor<Long> COUNT = new ValueStateDescriptor<>("count", Serializers.LONG);

    @TempDir
    Path root;

    private final JobId jobId = JobId.generate();
    private final ExecutionAttemptId attempt = new ExecutionAttemptId(jobId, 3, 0, 1);
    private final ManualExecutorService io = new ManualExecutorService();
    private final CheckpointRecordingJobMaster jobMaster = new CheckpointRecordingJobMaster();
    private final TaskThread taskThread = TaskThread.current(TASK);
    private final String thread = Thread.currentThread().getName();
    private final RecordingOperator head = new RecordingOperator("Count");
    private final RecordingOperator sink = new RecordingOperator("Sink");
    private final LocalChannel channel = new LocalChannel("out", 16);
    private TaskLocalStateStore localCopies;
    private final StateUploads uploads = new StateUploads(TASK, io);
    private HeapKeyedStateBackend backend;
    private OperatorChain chain;
    /** Snapshots stay in memory unless a test says otherwise. */
    private SubtaskCheckpointer.Spill spill;

    @BeforeEach
    void setUp() throws Exception {
        localCopies = new TaskLocalStateStore(root.resolve("local-recovery"));
        RecordWriter<Long> writer = new RecordWriter<>(List.of(channel), Serializers.LONG, Partitioner.forward(), 4096);
        TaskOutputs outputs = new TaskOutputs(List.of(writer), List.of(writer), Map.of());
        chain = OperatorChain.wire(new TaskInfo(TASK, 0, 1, 128, 0), List.of(head, sink), outputs, new ManualClock());
        backend = new HeapKeyedStateBackend(KeyGroups.rangeForSubtask(0, 128, 1), 128, Serializers.STRING);
        chain.open(backend, new RecordTimestamp(), OptionalLong.empty());
        count("a").update(7L);
        spill = new SubtaskCheckpointer.Spill(SubtaskCheckpointer.Spill.DEFAULT_THRESHOLD, root.resolve("spill"));
    }

    @Test
    void theBarrierPartRunsAtOnceAndTheAcknowledgementWaitsForTheUpload() throws Exception {
        SubtaskCheckpointer checkpointer = checkpointer(storageIn(root), 1 << 20, null);

        checkpointer.checkpoint(5, 1_000);

        assertThat(head.calls()).contains("prepareSnapshot 5 on " + thread);
        assertThat(sink.calls()).contains("prepareSnapshot 5 on " + thread);
        Buffer barrier = channel.poll();
        assertThat(barrier.isEvent()).isTrue();
        assertThat(barrier.event()).isEqualTo(new CheckpointBarrier(5, 1_000));
        assertThat(jobMaster.events()).as("nothing before the I/O executor ran").isEmpty();
        assertThat(uploads.inFlight()).isEqualTo(1);

        count("a").update(8L); // after the barrier: not part of checkpoint 5
        io.triggerAll();

        assertThat(jobMaster.events()).containsExactly("ack 5");
        assertThat(uploads.inFlight()).isZero();
        TaskStateHandle handle = jobMaster.acknowledged(5);
        assertThat(handle.isInline()).as("below the inline threshold").isTrue();
        assertThat(handle.keyGroupRange()).isEqualTo(backend.keyGroupRange());
        assertThat(restoredCount(handle.inlineState(), "a")).isEqualTo(7L);
    }

    @Test
    void stateAboveTheInlineThresholdGoesToAStateFileAndATaskLocalCopy() throws Exception {
        CheckpointStorage storage = storageIn(root);
        SubtaskCheckpointer checkpointer = checkpointer(storage, -1, null);

        checkpointer.checkpoint(6, 1_000);
        io.triggerAll();

        TaskStateHandle handle = jobMaster.acknowledged(6);
        assertThat(handle.isInline()).isFalse();
        assertThat(handle.stateFile()).contains("chk-6");
        byte[] written = storage.readTaskState(handle.stateFile());
        assertThat(written).hasSize((int) handle.stateSize());
        assertThat(localCopies.retrieve(jobId, 3, 0, 6, handle.stateFile(), handle.stateSize())).hasValue(written);
        assertThat(restoredCount(written, "a")).isEqualTo(7L);
    }

    @Test
    void aSnapshotAboveTheSpillThresholdIsLinkedFromALocalFileKeptAsTheCheckpointsTaskLocalCopy() throws Exception {
        for (int k = 0; k < 2_000; k++) {
            count("key-" + k).update((long) k);
        }
        Path spillDirectory = root.resolve("spill");
        spill = new SubtaskCheckpointer.Spill(1024, spillDirectory);
        CheckpointStorage storage = storageIn(root.resolve("checkpoints"));
        SubtaskCheckpointer checkpointer = checkpointer(storage, -1, null);

        checkpointer.checkpoint(6, 1_000);
        checkpointer.checkpoint(7, 1_100, true); // a savepoint
        io.triggerAll();

        for (long id : new long[] {6, 7}) {
            TaskStateHandle handle = jobMaster.acknowledged(id);
            assertThat(handle.isInline()).isFalse();
            byte[] written = storage.readTaskState(handle.stateFile());
            assertThat(written).as("the whole snapshot, streamed").hasSize((int) handle.stateSize());
            assertThat(handle.stateSize()).isGreaterThan(20 * 1024);
            assertThat(restoredCount(written, "a")).isEqualTo(7L);
            assertThat(restoredCount(written, "key-1999")).isEqualTo(1999L);
            assertThat(localCopies.hasFile(jobId, 3, 0, id, handle.stateFile()))
                    .as("the spilled file stays as the task-local copy of a checkpoint, not of a savepoint")
                    .isEqualTo(id == 6);
            // Framed as a state file while it was written, the spilled file is linked into the checkpoint directory,
            // not copied: the stored file is the task-local copy itself (checkpoint) or the only name left (savepoint).
            assertThat(Files.getAttribute(root.resolve("checkpoints").resolve(handle.stateFile()), "unix:nlink"))
                    .as("names of the stored state file of %d", id).isEqualTo(id == 6 ? 2 : 1);
        }
        Path stored = root.resolve("checkpoints").resolve(jobMaster.acknowledged(6).stateFile());
        assertThat(localCopies.localFiles(jobId, 3, 0)).anySatisfy(local -> assertThat(Files.isSameFile(local, stored))
                .as("the task-local copy is the stored file").isTrue());
        try (java.util.stream.Stream<Path> left = Files.list(spillDirectory)) {
            // What stays is this process's claim on the directory (its lock file, held while the process runs).
            assertThat(left).as("the temporary files are deleted")
                    .allSatisfy(p -> assertThat(p.getFileName().toString()).startsWith(".owner-"));
        }
    }

    @Test
    void aSpillDirectoryThatCannotBeWrittenDeclinesTheCheckpointNamingIt() throws Exception {
        for (int k = 0; k < 2_000; k++) {
            count("key-" + k).update((long) k);
        }
        Path notADirectory = Files.writeString(root.resolve("not-a-directory"), "a file where the spill directory goes");
        spill = new SubtaskCheckpointer.Spill(1024, notADirectory);
        SubtaskCheckpointer checkpointer = checkpointer(storageIn(root.resolve("checkpoints")), -1, null);

        checkpointer.checkpoint(6, 1_000);
        io.triggerAll();

        assertThat(jobMaster.events()).containsExactly("decline 6");
        assertThat(jobMaster.declined(6)).hasMessageContaining("local temporary file in " + notADirectory)
                .hasMessageContaining(TASK + " (checkpoint 6)");
    }

    @Test
    void aStorageThatRefusesTheStateDeclinesTheCheckpointWithTheStorageError() throws Exception {
        Path notADirectory = Files.writeString(root.resolve("blocked"), "a file where the checkpoint directory goes");
        SubtaskCheckpointer checkpointer = checkpointer(storageIn(notADirectory), -1, null);

        checkpointer.checkpoint(7, 1_000);
        io.triggerAll();

        assertThat(jobMaster.events()).containsExactly("decline 7");
        assertThat(jobMaster.declined(7)).isInstanceOf(StorageException.class).hasMessageContaining("blocked");
    }

    @Test
    void aSinkThatCannotReachItsSystemAtThePreCommitDeclinesTheCheckpointAndTheTaskRunsOn() throws Exception {
        SubtaskCheckpointer checkpointer = checkpointer(storageIn(root), 1 << 20, null);
        sink.failNextPrepareSnapshot(new SinkUnavailableException("s3://b/out unreachable (Connection refused)",
                new java.net.ConnectException("Connection refused")));

        checkpointer.checkpoint(8, 1_000); // no exception: the task is not failed

        assertThat(jobMaster.events()).as("declined at once, nothing uploaded").containsExactly("decline 8");
        assertThat(jobMaster.declined(8)).isInstanceOf(SinkUnavailableException.class)
                .hasMessageContaining("Connection refused");
        assertThat(CheckpointFailureReason.ofDecline(jobMaster.declined(8)))
                .as("a storage failure: not counted towards the tolerable failures").isEqualTo(CheckpointFailureReason.STORAGE);
        assertThat(uploads.inFlight()).isZero();
        assertThat(channel.poll().event()).as("the barrier still goes downstream").isEqualTo(new CheckpointBarrier(8, 1_000));

        checkpointer.checkpoint(9, 1_100);
        io.triggerAll();
        assertThat(jobMaster.events()).containsExactly("decline 8", "ack 9");
        assertThat(sink.calls()).containsSubsequence("prepareSnapshot 8 on " + thread, "prepareSnapshot 9 on " + thread);
    }

    @Test
    void anyOtherPreCommitFailureFailsTheTask() {
        SubtaskCheckpointer checkpointer = checkpointer(storageIn(root), 1 << 20, null);
        sink.failNextPrepareSnapshot(new java.io.IOException("disk full"));

        org.assertj.core.api.Assertions.assertThatThrownBy(() -> checkpointer.checkpoint(8, 1_000))
                .hasMessage("disk full");
        assertThat(jobMaster.events()).isEmpty();
    }

    @Test
    void aSourcesPositionTravelsWithItsAcknowledgement() throws Exception {
        SubtaskCheckpointer checkpointer = new SubtaskCheckpointer(target(storageIn(root), -1), chain, null,
                reader(new byte[] {4, 2}), uploads, taskThread, () -> false);

        checkpointer.checkpoint(8, 1_000);
        io.triggerAll();

        TaskStateHandle handle = jobMaster.acknowledged(8);
        assertThat(handle.sourcePosition()).containsExactly(4, 2);
        assertThat(handle.hasKeyedState()).isFalse();
    }

    @Test
    void anAlignmentAbandonedForANewerCheckpointIsDeclinedAtOnce() {
        SubtaskCheckpointer checkpointer = checkpointer(storageIn(root), -1, null);

        checkpointer.onAborted(4);

        assertThat(jobMaster.events()).containsExactly("decline 4");
        assertThat(jobMaster.declined(4)).isInstanceOf(CheckpointException.class)
                .hasMessageContaining("checkpoint 4").hasMessageContaining(TASK).hasMessageContaining("abandoned");
        assertThat(io.numQueued()).isZero();
    }

    @Test
    void theUploadOfACancelledTaskNeverRuns() throws Exception {
        SubtaskCheckpointer checkpointer = checkpointer(storageIn(root), -1, null);
        uploads.cancelAll();

        checkpointer.checkpoint(9, 1_000);
        io.triggerAll();

        assertThat(jobMaster.events()).as("neither acknowledged nor declined: the task is gone").isEmpty();
        try (java.util.stream.Stream<Path> written = Files.list(root)) {
            assertThat(written).as("nothing written").isEmpty();
        }
    }

    @Test
    void anUploadThatFailsPartWayDeletesTheFilesItWroteAndDeclines() throws Exception {
        Path checkpoints = root.resolve("checkpoints");
        SubtaskCheckpointer checkpointer = new SubtaskCheckpointer(target(storageIn(checkpoints), -1), chain,
                backendSnapshotting(new TwoFileSnapshot(SubtaskCheckpointerTest::refuseTheThirdFile)), null, uploads, taskThread, () -> false);

        checkpointer.checkpoint(7, 1_000);
        io.triggerAll();

        assertThat(jobMaster.events()).containsExactly("decline 7");
        assertThat(jobMaster.declined(7)).hasMessageContaining("refused the third file");
        assertThat(filesIn(checkpoints)).as("the shared table file and the checkpoint's own file it uploaded").isEmpty();
    }

    @Test
    void anUploadACancelInterruptsDeletesWhatItWroteAndKeepsTheInterrupt() throws Exception {
        Path checkpoints = root.resolve("checkpoints");
        SubtaskCheckpointer checkpointer = new SubtaskCheckpointer(target(storageIn(checkpoints), -1), chain,
                backendSnapshotting(new TwoFileSnapshot(SubtaskCheckpointerTest::interruptedByACancel)), null, uploads, taskThread, () -> true);

        checkpointer.checkpoint(8, 1_000);
        io.triggerAll(); // on this thread: the interrupt stays set for the executor, as on an I/O thread

        assertThat(Thread.interrupted()).as("the cancel's interrupt is kept").isTrue();
        assertThat(jobMaster.events()).as("neither acknowledged nor declined: the task is gone").isEmpty();
        assertThat(filesIn(checkpoints)).isEmpty();
    }

    @Test
    void aKeyedStateFileWrittenBeforeTheOperatorStateWasRefusedIsDeleted() throws Exception {
        sink.snapshotsOperatorState(new byte[4096]);
        Path checkpoints = root.resolve("checkpoints");
        CheckpointStorage storage = new CheckpointStorage(new io.sluice.storage.ForwardingBlobStore(
                new LocalFileBlobStore(checkpoints)) {
            @Override
            public void put(String path, byte[] data) {
                if (path.endsWith(".opstate")) {
                    throw new StorageException("Checkpoint storage refused " + path + " (Access Denied)");
                }
                super.put(path, data);
            }
        }, new SimpleMeterRegistry());
        SubtaskCheckpointer checkpointer = checkpointer(storage, -1, null);

        checkpointer.checkpoint(9, 1_000);
        io.triggerAll();

        assertThat(jobMaster.events()).containsExactly("decline 9");
        assertThat(jobMaster.declined(9)).hasMessageContaining(".opstate");
        assertThat(filesIn(checkpoints)).as("the keyed state file written first").isEmpty();
    }

    @Test
    void anUploadThatCompletesAfterItsTaskWasCancelledDeletesWhatItWroteInsteadOfAcknowledging() throws Exception {
        Path checkpoints = root.resolve("checkpoints");
        java.util.concurrent.atomic.AtomicBoolean ending = new java.util.concurrent.atomic.AtomicBoolean();
        SubtaskCheckpointer checkpointer = new SubtaskCheckpointer(target(storageIn(checkpoints), -1), chain,
                backendSnapshotting(new TwoFileSnapshot(() -> ending.set(true))), null, uploads, taskThread,
                ending::get);

        checkpointer.checkpoint(10, 1_000);
        io.triggerAll(); // the cancel comes while the upload runs (a blocked write does not answer its interrupt)

        assertThat(jobMaster.events()).as("no acknowledgement: no job master may be left to take the files").isEmpty();
        assertThat(filesIn(checkpoints)).as("the shared table file and the checkpoint's own file").isEmpty();
    }

    @Test
    void aStateFileWrittenForATaskThatFailedMeanwhileIsDeletedInsteadOfAcknowledged() throws Exception {
        Path checkpoints = root.resolve("checkpoints");
        java.util.concurrent.atomic.AtomicBoolean ending = new java.util.concurrent.atomic.AtomicBoolean();
        SubtaskCheckpointer checkpointer = new SubtaskCheckpointer(target(storageIn(checkpoints), -1), chain, backend,
                null, uploads, taskThread, ending::get);

        checkpointer.checkpoint(11, 1_000);
        ending.set(true); // the task failed and closes its state; the upload was not cancelled
        io.triggerAll();

        assertThat(jobMaster.events()).isEmpty();
        assertThat(filesIn(checkpoints)).isEmpty();
    }

    @Test
    void anUploadThatCompletesWhileItsTaskRunsIsAcknowledgedAndKept() throws Exception {
        Path checkpoints = root.resolve("checkpoints");
        SubtaskCheckpointer checkpointer = new SubtaskCheckpointer(target(storageIn(checkpoints), -1), chain,
                backendSnapshotting(new TwoFileSnapshot(() -> { })), null, uploads, taskThread, () -> false);

        checkpointer.checkpoint(12, 1_000);
        io.triggerAll();

        assertThat(jobMaster.events()).containsExactly("ack 12");
        assertThat(filesIn(checkpoints)).hasSize(2);
    }

    /**
     * A RocksDB-like snapshot whose upload writes a shared table file and a file of its own, then runs {@code then}:
     * which may end the upload there (storage refusing the third file, a cancel's interrupt) or let it complete.
     */
    private final class TwoFileSnapshot implements io.sluice.state.IncrementalKeyedStateSnapshot {
        private final Runnable then;

        TwoFileSnapshot(Runnable then) {
            this.then = then;
        }

        @Override
        public io.sluice.state.IncrementalStateHandle upload(io.sluice.state.CheckpointFiles files) {
            String shared;
            String own;
            try {
                Path dir = Files.createTempDirectory(root, "snapshot");
                shared = files.uploadShared(Files.writeString(dir.resolve("1.sst"), "table"), "1.sst");
                own = files.uploadPrivate(Files.writeString(dir.resolve("MANIFEST-1"), "manifest"), "MANIFEST-1");
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
            then.run();
            return new io.sluice.state.IncrementalStateHandle(backend.keyGroupRange(), 128, new byte[0],
                    List.of(new io.sluice.state.IncrementalStateHandle.StateFile("1.sst", shared, 5)),
                    List.of(new io.sluice.state.IncrementalStateHandle.StateFile("MANIFEST-1", own, 8)));
        }

        @Override
        public void discard() {
        }

        @Override
        public void writeTo(io.sluice.state.KeyedSnapshotOutput out) {
            throw new UnsupportedOperationException("a checkpoint of RocksDB's files only");
        }
    }

    private static void refuseTheThirdFile() {
        throw new StorageException("Checkpoint storage refused the third file (Access Denied)");
    }

    private static void interruptedByACancel() {
        Thread.currentThread().interrupt();
        throw new java.io.UncheckedIOException(new java.nio.channels.ClosedByInterruptException());
    }

    /** This test's heap backend, but its checkpoint snapshots are {@code snapshot}. */
    private io.sluice.state.KeyedStateBackend backendSnapshotting(io.sluice.state.KeyedStateSnapshot snapshot) {
        return (io.sluice.state.KeyedStateBackend) java.lang.reflect.Proxy.newProxyInstance(
                getClass().getClassLoader(), new Class<?>[] {io.sluice.state.KeyedStateBackend.class},
                (proxy, method, args) -> {
                    if (method.getName().equals("checkpointSnapshot")) {
                        return snapshot;
                    }
                    try {
                        return method.invoke(backend, args);
                    } catch (java.lang.reflect.InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }

    private static List<Path> filesIn(Path dir) throws java.io.IOException {
        if (!Files.exists(dir)) {
            return List.of();
        }
        try (java.util.stream.Stream<Path> walk = Files.walk(dir)) {
            return walk.filter(Files::isRegularFile).toList();
        }
    }

    @Test
    void noticesReachTheOperatorsOnTheTaskThreadOnly() throws Exception {
        SubtaskCheckpointer checkpointer = checkpointer(storageIn(root), -1, null);

        checkpointer.notifyCheckpointComplete(5);
        checkpointer.notifyCheckpointAborted(6);
        Throwable offThread = CompletableFuture.runAsync(() -> {
            try {
                checkpointer.notifyCheckpointComplete(7);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }).handle((ok, error) -> error).get(10, TimeUnit.SECONDS);

        assertThat(head.calls()).containsSubsequence("complete 5 on " + thread, "aborted 6 on " + thread)
                .noneMatch(c -> c.startsWith("complete 7"));
        assertThat(sink.calls()).containsSubsequence("complete 5 on " + thread, "aborted 6 on " + thread);
        assertThat(offThread).hasRootCauseInstanceOf(IllegalStateException.class)
                .rootCause().hasMessageContaining("must run on its task thread");
    }

    // ------------------------------------------------------------------ helpers

    private SubtaskCheckpointer checkpointer(CheckpointStorage storage, int inlineThreshold, SourceReader<?> reader) {
        return new SubtaskCheckpointer(target(storage, inlineThreshold), chain, backend, reader, uploads, taskThread,
                () -> false);
    }

    private SubtaskCheckpointer.Target target(CheckpointStorage storage, int inlineThreshold) {
        return new SubtaskCheckpointer.Target(TASK, jobId, attempt, jobMaster, storage,
                new SubtaskLocalState(localCopies, jobId, 3, 0), inlineThreshold, spill);
    }

    private static CheckpointStorage storageIn(Path dir) {
        return new CheckpointStorage(new LocalFileBlobStore(dir), new SimpleMeterRegistry());
    }

    private ValueState<Long> count(String key) {
        backend.setCurrentKey(key);
        return backend.getValueState(COUNT);
    }

    private static Long restoredCount(byte[] snapshot, String key) {
        HeapKeyedStateBackend restored = new HeapKeyedStateBackend(KeyGroups.rangeForSubtask(0, 128, 1), 128,
                Serializers.STRING);
        restored.restore(List.of(new DataInputBuffer(snapshot)));
        restored.setCurrentKey(key);
        return restored.getValueState(COUNT).value();
    }

    private static SourceReader<Long> reader(byte[] position) {
        return new SourceReader<>() {
            @Override
            public int emit(Collector<Long> out, int maxRecords) {
                return END_OF_INPUT;
            }

            @Override
            public byte[] snapshotPosition() {
                return position;
            }

            @Override
            public void restorePosition(byte[] p) {
            }
        };
    }
}
