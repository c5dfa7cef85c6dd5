package io.sluice.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sluice.graph.JobId;
import io.sluice.job.JobStatus;
import io.sluice.storage.LocalFileBlobStore;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class StandaloneCompletedCheckpointStoreTest {
    @TempDir
    Path root;

    private final JobId job = JobId.of("fedcba9876543210fedcba9876543210");
    private CheckpointStorage storage;

    @BeforeEach
    void setUp() {
        storage = new CheckpointStorage(new LocalFileBlobStore(root), new SimpleMeterRegistry());
    }

    @Test
    void retentionReturnsSubsumedIdsOldestFirst() throws Exception {
        StandaloneCompletedCheckpointStore store = new StandaloneCompletedCheckpointStore(job, 2, storage);

        assertThat(store.addCheckpoint(checkpoint(1))).isEmpty();
        assertThat(store.addCheckpoint(checkpoint(2))).isEmpty();
        assertThat(store.addCheckpoint(checkpoint(3))).containsExactly(1L);
        assertThat(store.addCheckpoint(checkpoint(4))).containsExactly(2L);

        assertThat(store.retainedIds()).containsExactly(3L, 4L);
        assertThat(store.size()).isEqualTo(2);
        assertThat(store.maxRetained()).isEqualTo(2);
        assertThat(storage.discards()).as("the caller discards subsumed checkpoints").isZero();
        assertThat(checkpointDir(1)).isDirectory();
    }

    @Test
    void retainingOneSubsumesEveryPreviousCheckpoint() throws Exception {
        StandaloneCompletedCheckpointStore store = new StandaloneCompletedCheckpointStore(job, 1, storage);

        assertThat(store.addCheckpoint(checkpoint(5))).isEmpty();
        assertThat(store.addCheckpoint(checkpoint(6))).containsExactly(5L);
        assertThat(store.retainedIds()).containsExactly(6L);
    }

    @Test
    void latestIsTheLastAddedCheckpoint() throws Exception {
        StandaloneCompletedCheckpointStore store = new StandaloneCompletedCheckpointStore(job, 3, storage);
        assertThat(store.latest()).isEmpty();

        CompletedCheckpoint first = checkpoint(1);
        store.addCheckpoint(first);
        assertThat(store.latest()).containsSame(first);

        CompletedCheckpoint second = checkpoint(2);
        store.addCheckpoint(second);
        assertThat(store.latest()).containsSame(second);
        assertThat(storage.metadataReads()).isZero();
    }

    @ParameterizedTest
    @EnumSource(value = JobStatus.class, names = {"FINISHED", "FAILED", "CANCELED"})
    void aDiscardingShutdownDiscardsAll(JobStatus status) throws Exception {
        StandaloneCompletedCheckpointStore store = new StandaloneCompletedCheckpointStore(job, 2, storage);
        store.addCheckpoint(checkpoint(1));
        store.addCheckpoint(checkpoint(2));

        store.shutdown(status, true);

        assertThat(store.size()).isZero();
        assertThat(store.latest()).isEmpty();
        assertThat(store.retainedIds()).isEmpty();
        assertThat(checkpointDir(1)).doesNotExist();
        assertThat(checkpointDir(2)).doesNotExist();
        assertThat(storage.discards()).isEqualTo(2);
    }

    @Test
    void finishedDiscardsByDefault() throws Exception {
        StandaloneCompletedCheckpointStore store = new StandaloneCompletedCheckpointStore(job, 2, storage);
        store.addCheckpoint(checkpoint(1));

        store.shutdown(JobStatus.FINISHED);

        assertThat(store.retainedIds()).isEmpty();
        assertThat(checkpointDir(1)).doesNotExist();
    }

    @ParameterizedTest
    @EnumSource(value = JobStatus.class, names = {"SUSPENDED", "FAILED", "CANCELED"})
    void shutdownKeepsAllByDefaultUnlessFinished(JobStatus status) throws Exception {
        StandaloneCompletedCheckpointStore store = new StandaloneCompletedCheckpointStore(job, 2, storage);
        store.addCheckpoint(checkpoint(1));
        store.addCheckpoint(checkpoint(2));

        store.shutdown(status);

        assertThat(store.retainedIds()).containsExactly(1L, 2L);
        assertThat(store.latest()).get().extracting(CompletedCheckpoint::checkpointId).isEqualTo(2L);
        assertThat(checkpointDir(1)).isDirectory();
        assertThat(checkpointDir(2)).isDirectory();
        assertThat(storage.discards()).isZero();
    }

    @Test
    void rejectsRetainingFewerThanOne() {
        assertThatThrownBy(() -> new StandaloneCompletedCheckpointStore(job, 0, storage))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("maxRetained");
    }

    /** A completed checkpoint with one state file and its metadata, written to storage. */
    private CompletedCheckpoint checkpoint(long id) {
        byte[] data = {1, 2, (byte) id};
        String file = storage.writeTaskState(job, id, 2, 0, data);
        CompletedCheckpoint cp = new CompletedCheckpoint(job, id, 1000 * id, 1000 * id + 5,
                List.of(new TaskStateHandle(2, 0, file, data.length, null, null)), null);
        return cp.withMetadataPath(storage.writeMetadata(cp));
    }

    private Path checkpointDir(long id) {
        return root.resolve(job.value()).resolve("chk-" + id);
    }
}
