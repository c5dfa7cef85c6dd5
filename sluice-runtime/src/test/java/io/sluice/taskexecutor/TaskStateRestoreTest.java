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
import io.sluice.state.KeyGroupRange;
import io.sluice.state.KeyGroups;
import io.sluice.state.KeyedStateBackend;
import io.sluice.storage.LocalFileBlobStore;
import io.sluice.util.ManualClock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
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

    // ------------------------------------------------------------------ helpers

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
