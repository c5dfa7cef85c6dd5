package io.sluice.jobmaster.runner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sluice.checkpoint.CheckpointStorage;
import io.sluice.checkpoint.CheckpointStorageRegistry;
import io.sluice.checkpoint.CompletedCheckpoint;
import io.sluice.checkpoint.TaskStateHandle;
import io.sluice.graph.JobId;
import io.sluice.ha.CheckpointRecoveryFactory;
import io.sluice.ha.embedded.EmbeddedCheckpointRecoveryFactory;
import io.sluice.ha.embedded.FileCheckpointPointerStore;
import io.sluice.ha.memory.InMemoryHaServices;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Which checkpoint {@code checkpoints.restore-from} names, and what it says when it names none. */
class RestoreCheckpointResolverTest {
    private static final JobId OLD = JobId.of("0123456789abcdef0123456789abcdef");

    @TempDir
    Path dir;

    private CheckpointStorageRegistry storages;
    private CheckpointStorage storage;
    private FileCheckpointPointerStore pointers;
    private CheckpointRecoveryFactory embedded;

    @BeforeEach
    void setUp() {
        storages = new CheckpointStorageRegistry(new SimpleMeterRegistry());
        storage = storages.forLocation(dir.resolve("checkpoints").toString());
        pointers = new FileCheckpointPointerStore(dir.resolve("ha").resolve("checkpoints"));
        embedded = new EmbeddedCheckpointRecoveryFactory(pointers, dir.resolve("ha").resolve("checkpoint-counters"));
    }

    @AfterEach
    void tearDown() {
        storages.close();
    }

    @Test
    void latestOfAJobIsItsNewestReadablePointedCheckpoint() throws Exception {
        write(1);
        write(2);
        write(3); // in storage, but no pointer: not retained by HA
        pointers.writePointer(OLD, 1, storage.metadataPath(OLD, 1));
        pointers.writePointer(OLD, 2, storage.metadataPath(OLD, 2));
        Files.write(dir.resolve("checkpoints").resolve(OLD.value()).resolve("chk-2").resolve("_metadata"), new byte[] {1, 2, 3});

        CompletedCheckpoint cp = resolver(embedded).resolve("latest:" + OLD);

        assertThat(cp.checkpointId()).as("chk-2 is corrupt: the next older pointer").isEqualTo(1);
        assertThat(cp.jobId()).isEqualTo(OLD);
    }

    @Test
    void withoutPointersLatestFallsBackToTheCheckpointDirectory() throws Exception {
        write(4);
        write(5);
        CompletedCheckpoint cp = resolver(new InMemoryHaServices().checkpointRecoveryFactory()).resolve("latest:" + OLD);
        assertThat(cp.checkpointId()).isEqualTo(5);
    }

    @Test
    void aPathMayNameTheDirectoryOrItsMetadata() throws Exception {
        write(7);
        Path chk = dir.resolve("checkpoints").resolve(OLD.value()).resolve("chk-7");
        for (String spec : List.of(chk.toString(), chk + "/", chk.resolve("_metadata").toString())) {
            assertThat(resolver(embedded).resolve(spec).checkpointId()).as(spec).isEqualTo(7);
        }
    }

    @Test
    void whatNamesNoUsableCheckpointIsRejectedNamingIt() throws Exception {
        write(1);
        Path elsewhere = dir.resolve("elsewhere").resolve(OLD.value()).resolve("chk-1");
        assertThatThrownBy(() -> resolver(embedded).resolve(elsewhere.toString()))
                .isInstanceOf(RestoreCheckpointException.class)
                .hasMessageContaining(elsewhere.toString())
                .hasMessageContaining("is not a checkpoint or savepoint (there is no file://")
                .hasMessageContaining("elsewhere/" + OLD.value() + "/chk-1/_metadata)");
        assertThatThrownBy(() -> resolver(embedded).resolve("latest:ffffffffffffffffffffffffffffffff"))
                .isInstanceOf(RestoreCheckpointException.class)
                .hasMessageContaining("has no retained checkpoint");
        assertThatThrownBy(() -> resolver(embedded).resolve(dir.resolve("nothing-here").toString()))
                .isInstanceOf(RestoreCheckpointException.class)
                .hasMessageContaining("is not a checkpoint");
        Path missing = dir.resolve("checkpoints").resolve(OLD.value()).resolve("chk-9");
        assertThatThrownBy(() -> resolver(embedded).resolve(missing.toString()))
                .isInstanceOf(RestoreCheckpointException.class)
                .hasMessageContaining("there is no checkpoint at");
    }

    @Test
    void aCheckpointDirectoryCopiedAnywhereRestoresFromItsCopy() throws Exception {
        write(3);
        Path original = dir.resolve("checkpoints").resolve(OLD.value()).resolve("chk-3");
        Path copy = dir.resolve("moved").resolve("my-savepoint");
        java.nio.file.Files.createDirectories(copy);
        try (var files = java.nio.file.Files.list(original)) {
            for (Path f : files.toList()) {
                java.nio.file.Files.copy(f, copy.resolve(f.getFileName()));
            }
        }
        CompletedCheckpoint cp = resolver(embedded).resolve(copy.toString());
        assertThat(cp.checkpointId()).isEqualTo(3);
        String stateFile = cp.taskStates().get(0).stateFile();
        assertThat(stateFile).as("named by its full location, in the copy").startsWith("file://").endsWith(
                "moved/my-savepoint/0-0.state");
        // The original is gone: the copy alone is read, through the job's storage, which opens the other location.
        java.nio.file.Files.walk(original).sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        assertThat(storage.readTaskState(stateFile)).containsExactly(3, 1, 2);
    }

    private RestoreCheckpointResolver resolver(CheckpointRecoveryFactory factory) {
        return new RestoreCheckpointResolver(storage, storages, factory);
    }

    private void write(long id) {
        String state = storage.writeTaskState(OLD, id, 0, 0, new byte[] {(byte) id, 1, 2});
        CompletedCheckpoint cp = new CompletedCheckpoint(OLD, id, 1000 + id, 2000 + id,
                List.of(new TaskStateHandle(0, 0, state, 3, new byte[] {(byte) id}, null)), null);
        storage.writeMetadata(cp);
    }
}
