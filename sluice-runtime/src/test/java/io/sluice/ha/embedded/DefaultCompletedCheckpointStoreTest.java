package io.sluice.ha.embedded;

import static io.sluice.ha.embedded.CheckpointTestSupport.writeCheckpoint;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sluice.checkpoint.CheckpointStorage;
import io.sluice.checkpoint.CompletedCheckpoint;
import io.sluice.graph.JobId;
import io.sluice.ha.LeaderElection;
import io.sluice.ha.LeadershipLostException;
import io.sluice.jobmaster.JobStatus;
import io.sluice.storage.LocalFileBlobStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DefaultCompletedCheckpointStoreTest {
    private static final JobId JOB = JobId.of("1a2b3c4d5e6f708192a3b4c5d6e7f809");

    @TempDir
    Path haDir;
    @TempDir
    Path checkpointDir;

    private EmbeddedHaServices ha;
    private CheckpointStorage storage;
    private FileCheckpointPointerStore pointers;
    private LeaderElection election;
    private UUID session;

    @BeforeEach
    void setUp() throws Exception {
        ha = new EmbeddedHaServices(haDir);
        storage = new CheckpointStorage(new LocalFileBlobStore(checkpointDir), new SimpleMeterRegistry());
        pointers = new FileCheckpointPointerStore(ha.haDirectory().resolve("checkpoints"));
        RecordingContender contender = new RecordingContender("jm-1");
        election = ha.jobLeaderElection(JOB, "jm-1");
        election.startLeaderElection(contender);
        session = contender.awaitGrant();
    }

    @AfterEach
    void tearDown() {
        ha.close();
    }

    private DefaultCompletedCheckpointStore emptyStore(int maxRetained) {
        return new DefaultCompletedCheckpointStore(JOB, maxRetained, pointers, storage, election, session, null,
                List.of());
    }

    @Test
    void pointersAreWrittenZeroPaddedAndReadBack() throws Exception {
        pointers.writePointer(JOB, 7, "some/path/_metadata");

        assertThat(pointers.pointerFile(JOB, 7).getFileName().toString()).isEqualTo("0000000000000000007");
        assertThat(pointers.readPointer(JOB, 7)).isEqualTo("some/path/_metadata");
        assertThat(pointers.checkpointIds(JOB)).containsExactly(7L);
        pointers.removePointer(JOB, 7);
        pointers.removePointer(JOB, 7);
        assertThat(pointers.checkpointIds(JOB)).isEmpty();
    }

    @Test
    void retentionRemovesTheOldestPointersAndReturnsTheirIds() throws Exception {
        DefaultCompletedCheckpointStore store = emptyStore(2);

        assertThat(store.addCheckpoint(writeCheckpoint(storage, JOB, 1))).isEmpty();
        assertThat(store.addCheckpoint(writeCheckpoint(storage, JOB, 2))).isEmpty();
        CompletedCheckpoint third = writeCheckpoint(storage, JOB, 3);
        assertThat(store.addCheckpoint(third)).containsExactly(1L);

        assertThat(store.latest()).contains(third);
        assertThat(store.retainedIds()).containsExactly(2L, 3L);
        assertThat(store.size()).isEqualTo(2);
        assertThat(pointers.checkpointIds(JOB)).containsExactly(2L, 3L);
        assertThat(pointers.readPointer(JOB, 3)).isEqualTo(third.metadataPath());
        assertThat(store.loadRetained(2).checkpointId()).isEqualTo(2L);
    }

    @Test
    void aWriteAfterRevocationIsRefusedAndLeavesNoPointer() throws Exception {
        DefaultCompletedCheckpointStore store = emptyStore(3);
        store.addCheckpoint(writeCheckpoint(storage, JOB, 1));
        ha.leaderElectionService().revokeLeader(EmbeddedHaServices.jobLeadershipName(JOB));

        assertThatThrownBy(() -> store.addCheckpoint(writeCheckpoint(storage, JOB, 2)))
                .isInstanceOf(LeadershipLostException.class)
                .hasMessageContaining("session " + session);

        assertThat(pointers.checkpointIds(JOB)).containsExactly(1L);
        assertThat(store.retainedIds()).containsExactly(1L);
        assertThat(store.latest().orElseThrow().checkpointId()).isEqualTo(1L);
    }

    @Test
    void onlyADiscardingShutdownRemovesPointersAndFilesSuspendedFailedAndCancelledKeepThem() throws Exception {
        DefaultCompletedCheckpointStore store = emptyStore(3);
        store.addCheckpoint(writeCheckpoint(storage, JOB, 1));
        store.addCheckpoint(writeCheckpoint(storage, JOB, 2));

        store.shutdown(JobStatus.SUSPENDED);
        store.shutdown(JobStatus.FAILED);
        store.shutdown(JobStatus.CANCELED); // default: checkpoints.retain-on-cancel
        assertThat(pointers.checkpointIds(JOB)).containsExactly(1L, 2L);
        assertThat(storage.listCheckpointIds(JOB)).containsExactly(1L, 2L);
        assertThat(DefaultCompletedCheckpointStore.retainedPaths(pointers, JOB))
                .containsExactly(storage.metadataPath(JOB, 2), storage.metadataPath(JOB, 1));

        store.shutdown(JobStatus.CANCELED, true);
        assertThat(pointers.checkpointIds(JOB)).isEmpty();
        assertThat(Files.exists(ha.haDirectory().resolve("checkpoints").resolve(JOB.value()))).isFalse();
        assertThat(storage.listCheckpointIds(JOB)).isEmpty();
        assertThat(store.retainedIds()).isEmpty();
        assertThat(store.latest()).isEmpty();
    }
}
