package io.sluice.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sluice.graph.JobId;
import io.sluice.storage.BlobNotFoundException;
import io.sluice.storage.FaultInjectingBlobStore;
import io.sluice.storage.LocalFileBlobStore;
import io.sluice.storage.StorageException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CheckpointStorageTest {
    @TempDir
    Path root;

    private final JobId job = JobId.of("1a2b3c4d5e6f708192a3b4c5d6e7f809");
    private SimpleMeterRegistry registry;
    private CheckpointStorage storage;

    @BeforeEach
    void setUp() {
        registry = new SimpleMeterRegistry();
        storage = new CheckpointStorage(new LocalFileBlobStore(root), registry);
    }

    @Test
    void usesTheDocumentedLayout() {
        String statePath = storage.writeTaskState(job, 5, 2, 1, new byte[] {1});

        assertThat(statePath).isEqualTo(job + "/chk-5/2-1.state");
        assertThat(storage.metadataPath(job, 5)).isEqualTo(job + "/chk-5/_metadata");
        assertThat(root.resolve(statePath)).isRegularFile();
        assertThat(storage.location()).isEqualTo("file://" + root.toAbsolutePath().normalize());
    }

    @Test
    void taskStateRoundTrip() {
        String path = storage.writeTaskState(job, 5, 2, 1, new byte[] {1, 2, 3});

        assertThat(storage.readTaskState(path)).containsExactly(1, 2, 3);
    }

    @Test
    void aCrashBetweenStateFilesAndMetadataLeavesNoCompletedCheckpoint() {
        writeCompleted(4);
        storage.writeTaskState(job, 5, 1, 0, new byte[] {1});
        storage.writeTaskState(job, 5, 1, 1, new byte[] {2});
        // ... the job manager dies here, before writing the metadata of checkpoint 5.

        assertThat(storage.listCheckpointIds(job)).containsExactly(4L);
        assertThatThrownBy(() -> storage.readMetadata(storage.metadataPath(job, 5)))
                .isInstanceOf(BlobNotFoundException.class)
                .hasMessageContaining(storage.metadataPath(job, 5));
    }

    @Test
    void metadataRoundTripEqualsTheOriginalWithItsPath() {
        CompletedCheckpoint cp = CheckpointMetadataSerializerTest.sample(job, 7);

        String path = storage.writeMetadata(cp);

        assertThat(path).isEqualTo(storage.metadataPath(job, 7));
        assertThat(storage.readMetadata(path)).isEqualTo(cp.withMetadataPath(path));
        assertThat(storage.writeMetadata(cp.withMetadataPath(path))).as("rewriting with its own path").isEqualTo(path);
    }

    @Test
    void writeMetadataRejectsAForeignMetadataPath() {
        CompletedCheckpoint cp = CheckpointMetadataSerializerTest.sample(job, 7).withMetadataPath("elsewhere/_metadata");

        assertThatThrownBy(() -> storage.writeMetadata(cp))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("elsewhere/_metadata")
                .hasMessageContaining(storage.metadataPath(job, 7));
    }

    @Test
    void listsOnlyCompletedCheckpointsAscending() {
        writeCompleted(10);
        writeCompleted(2);
        writeCompleted(9);
        storage.writeTaskState(job, 11, 1, 0, new byte[1]);
        storage.writeMetadata(CheckpointMetadataSerializerTest.sample(JobId.generate(), 3));

        assertThat(storage.listCheckpointIds(job)).containsExactly(2L, 9L, 10L);
        assertThat(storage.listCheckpointIds(JobId.generate())).isEmpty();
    }

    @Test
    void flippedByteInMetadataIsCorruptNamingThePath() throws Exception {
        String path = writeCompleted(7);
        Path file = root.resolve(path);
        byte[] data = Files.readAllBytes(file);
        data[data.length / 2] ^= 0x40;
        Files.write(file, data);

        assertThatThrownBy(() -> storage.readMetadata(path))
                .isInstanceOf(CorruptCheckpointException.class)
                .hasMessageContaining(path)
                .hasMessageContaining("checksum mismatch");
    }

    @Test
    void truncatedMetadataIsCorruptNamingThePath() throws Exception {
        String path = writeCompleted(7);
        Path file = root.resolve(path);
        byte[] data = Files.readAllBytes(file);
        Files.write(file, Arrays.copyOf(data, data.length - 5));

        assertThatThrownBy(() -> storage.readMetadata(path))
                .isInstanceOf(CorruptCheckpointException.class)
                .hasMessageContaining(path)
                .hasMessageContaining("truncated");
    }

    @Test
    void discardRemovesTheCheckpointDirectoryAndIsIdempotent() {
        writeCompleted(6);
        writeCompleted(7);

        storage.discard(job, 6);
        storage.discard(job, 6);

        assertThat(root.resolve(job + "/chk-6")).doesNotExist();
        assertThat(storage.listCheckpointIds(job)).containsExactly(7L);
        assertThat(storage.discards()).isEqualTo(2);
    }

    @Test
    void discardJobRemovesEverythingOfTheJobOnly() {
        writeCompleted(1);
        JobId other = JobId.generate();
        storage.writeMetadata(CheckpointMetadataSerializerTest.sample(other, 1));

        storage.discardJob(job);
        storage.discardJob(job);

        assertThat(root.resolve(job.value())).doesNotExist();
        assertThat(storage.listCheckpointIds(other)).containsExactly(1L);
    }

    @Test
    void countersMoveAsExpected() {
        String state = storage.writeTaskState(job, 1, 1, 0, new byte[1]);
        storage.readTaskState(state);
        storage.readTaskState(state);
        String meta = storage.writeMetadata(CheckpointMetadataSerializerTest.sample(job, 1));
        assertThat(storage.metadataReads()).isZero();

        storage.readMetadata(meta);
        storage.discard(job, 1);

        assertThat(storage.stateWrites()).isEqualTo(1);
        assertThat(storage.stateReads()).isEqualTo(2);
        assertThat(storage.metadataWrites()).isEqualTo(1);
        assertThat(storage.metadataReads()).isEqualTo(1);
        assertThat(storage.discards()).isEqualTo(1);
        assertThat(registry.get(CheckpointStorage.REQUESTS_METRIC).tag("kind", "state_read").counter().count())
                .isEqualTo(2.0);
        assertThat(registry.get(CheckpointStorage.REQUESTS_METRIC).tag("kind", "metadata_read").counter().count())
                .isEqualTo(1.0);
    }

    @Test
    void checkWritableSucceedsAndLeavesNoProbeBehind() throws Exception {
        storage.checkWritable();

        try (var files = Files.list(root)) {
            assertThat(files).isEmpty();
        }
    }

    @Test
    void checkWritableFailsNamingTheLocationWhenDirectoriesCannotBeCreated() throws Exception {
        // A root below a regular file cannot be created, even by root (who ignores permissions).
        Path plainFile = Files.write(root.resolve("not-a-directory"), new byte[1]);
        CheckpointStorage broken = new CheckpointStorage(new LocalFileBlobStore(plainFile.resolve("checkpoints")),
                registry);

        assertThatThrownBy(broken::checkWritable)
                .isInstanceOf(StorageException.class)
                .hasMessageStartingWith("Checkpoint directory " + broken.location() + " is not writable (")
                .hasMessageContaining("Choose a writable checkpoints.dir or fix its permissions.")
                .hasCauseInstanceOf(StorageException.class);
    }

    @Test
    void checkWritableFailsWhenTheStoreIsUnreachable() {
        FaultInjectingBlobStore faults = new FaultInjectingBlobStore(new LocalFileBlobStore(root));
        faults.refuseConnections();
        CheckpointStorage unreachable = new CheckpointStorage(faults, registry);

        assertThatThrownBy(unreachable::checkWritable)
                .isInstanceOf(StorageException.class)
                .hasMessageContaining(unreachable.location())
                .hasMessageContaining("Connection refused");
    }

    private String writeCompleted(long id) {
        storage.writeTaskState(job, id, 1, 0, new byte[] {(byte) id});
        return storage.writeMetadata(CheckpointMetadataSerializerTest.sample(job, id));
    }
}
