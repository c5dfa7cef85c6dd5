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
import io.sluice.job.JobStatus;
import io.sluice.storage.LocalFileBlobStore;
import io.sluice.testutil.ForwardingCheckpointPointerStore;
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

    /**
     * A pointer write that fails after it started may have landed: the store says so (the coordinator
     * then keeps the files) and keeps the id among the retained ones, so that retention removes the
     * pointer, if there is one, before the files are discarded.
     */
    @Test
    void aPointerWriteThatFailsAfterItStartedIsInDoubtAndRetentionRemovesItLater() throws Exception {
        boolean[] failed = {false};
        io.sluice.ha.CheckpointPointerStore failingOnce = new ForwardingCheckpointPointerStore(pointers) {
            @Override
            public void writePointer(JobId jobId, long checkpointId, String metadataPath) throws Exception {
                delegate.writePointer(jobId, checkpointId, metadataPath);
                if (!failed[0]) {
                    failed[0] = true;
                    throw new java.io.IOException("injected: the pointer file was renamed, then the disk reported an"
                            + " I/O error");
                }
            }
        };
        DefaultCompletedCheckpointStore store = new DefaultCompletedCheckpointStore(JOB, 1, failingOnce, storage,
                election, session, null, List.of());

        assertThatThrownBy(() -> store.addCheckpoint(writeCheckpoint(storage, JOB, 1)))
                .isInstanceOf(io.sluice.checkpoint.CheckpointPointerInDoubtException.class)
                .hasMessageContaining("checkpoint 1 of job " + JOB)
                .hasMessageContaining("may have landed")
                .hasCauseInstanceOf(java.io.IOException.class);
        assertThat(pointers.checkpointIds(JOB)).as("it did land").containsExactly(1L);
        assertThat(store.latest()).as("not completed").isEmpty();
        assertThat(store.retainedIds()).containsExactly(1L);

        CompletedCheckpoint second = writeCheckpoint(storage, JOB, 2);
        assertThat(store.addCheckpoint(second)).as("subsumed: the caller discards its files").containsExactly(1L);
        assertThat(pointers.checkpointIds(JOB)).as("its pointer went first").containsExactly(2L);
        assertThat(store.latest()).contains(second);
    }

    @Test
    void aCheckpointAddedAfterShutdownIsRefusedAndLeavesNoPointer() throws Exception {
        DefaultCompletedCheckpointStore store = emptyStore(3);
        store.addCheckpoint(writeCheckpoint(storage, JOB, 1));
        store.shutdown(JobStatus.FINISHED, true);

        CompletedCheckpoint late = writeCheckpoint(storage, JOB, 2);
        assertThatThrownBy(() -> store.addCheckpoint(late))
                .isInstanceOf(io.sluice.checkpoint.CheckpointStoreShutDownException.class)
                .hasMessageContaining("Checkpoint 2 of job " + JOB)
                .hasMessageContaining("FINISHED");

        assertThat(pointers.checkpointIds(JOB)).as("the finished job left no pointer").isEmpty();
        assertThat(store.retainedIds()).isEmpty();
    }

    @Test
    void aDiscardingShutdownAlsoRemovesOrphanedCheckpointFilesThatNoPointerNames() throws Exception {
        DefaultCompletedCheckpointStore store = emptyStore(3);
        store.addCheckpoint(writeCheckpoint(storage, JOB, 1));
        storage.writeTaskState(JOB, 2, 1, 0, new byte[] {1, 2, 3}); // a late upload into an aborted checkpoint

        store.shutdown(JobStatus.FINISHED, true);

        assertThat(checkpointDir.resolve(JOB.value())).as("nothing of the finished job is left").doesNotExist();
    }

    /** A pointer write in flight when the job's cleanup starts: the cleanup waits for it and removes it too. */
    @Test
    void aShutdownWaitsForAPointerWriteInFlightAndRemovesThatPointerToo() throws Exception {
        java.util.concurrent.CountDownLatch writing = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
        io.sluice.ha.CheckpointPointerStore blocking = new BlockingPointerStore(pointers, writing, release);
        DefaultCompletedCheckpointStore store = new DefaultCompletedCheckpointStore(JOB, 3, blocking, storage,
                election, session, null, List.of());
        CompletedCheckpoint first = writeCheckpoint(storage, JOB, 1);
        java.util.concurrent.CompletableFuture<List<Long>> add = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
            try {
                return store.addCheckpoint(first);
            } catch (Exception e) {
                throw new java.util.concurrent.CompletionException(e);
            }
        });
        writing.await();
        Thread cleanup = new Thread(() -> {
            try {
                store.shutdown(JobStatus.FINISHED, true);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }, "cleanup");
        cleanup.start();
        // The cleanup waits (for the store's lock, or the election's) or has already run.
        org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(10))
                .until(() -> cleanup.getState() != Thread.State.RUNNABLE && cleanup.getState() != Thread.State.NEW);

        release.countDown();
        add.get(10, java.util.concurrent.TimeUnit.SECONDS);
        cleanup.join(10_000);

        assertThat(cleanup.isAlive()).isFalse();
        assertThat(pointers.checkpointIds(JOB)).as("the pointer written during the cleanup is removed too").isEmpty();
        assertThat(storage.listCheckpointIds(JOB)).isEmpty();
    }

    /** Delegates; the first pointer write signals {@code writing} and waits for {@code release}. */
    private static final class BlockingPointerStore extends ForwardingCheckpointPointerStore {
        private final java.util.concurrent.CountDownLatch writing;
        private final java.util.concurrent.CountDownLatch release;

        BlockingPointerStore(io.sluice.ha.CheckpointPointerStore delegate, java.util.concurrent.CountDownLatch writing,
                             java.util.concurrent.CountDownLatch release) {
            super(delegate);
            this.writing = writing;
            this.release = release;
        }

        @Override
        public void writePointer(JobId jobId, long checkpointId, String metadataPath) throws Exception {
            writing.countDown();
            release.await();
            delegate.writePointer(jobId, checkpointId, metadataPath);
        }
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

    /** Storage refuses the deletions at the end of a FINISHED job: the error says what is left, a retry deletes it. */
    @Test
    void aDiscardingShutdownThatStorageRefusesIsRetriedUntilNothingIsLeft() throws Exception {
        io.sluice.storage.FaultInjectingBlobStore faulty =
                new io.sluice.storage.FaultInjectingBlobStore(new LocalFileBlobStore(checkpointDir));
        CheckpointStorage refusing = new CheckpointStorage(faulty, new SimpleMeterRegistry());
        DefaultCompletedCheckpointStore store = new DefaultCompletedCheckpointStore(JOB, 3, pointers, refusing,
                election, session, null, List.of());
        store.addCheckpoint(writeCheckpoint(refusing, JOB, 1));
        store.addCheckpoint(writeCheckpoint(refusing, JOB, 2));

        faulty.refuseConnections();
        assertThatThrownBy(() -> store.shutdown(JobStatus.FINISHED, true))
                .isInstanceOf(io.sluice.checkpoint.IncompleteCheckpointCleanupException.class)
                .hasMessageContaining("checkpoints [1, 2] of job " + JOB)
                .hasMessageContaining("after the job FINISHED");
        assertThat(pointers.checkpointIds(JOB)).as("the pointers are gone at once").isEmpty();
        assertThat(checkpointDir.resolve(JOB.value())).as("the files could not be deleted yet").exists();
        assertThatThrownBy(() -> store.shutdown(JobStatus.FINISHED, true))
                .isInstanceOf(io.sluice.checkpoint.IncompleteCheckpointCleanupException.class);

        faulty.heal();
        store.shutdown(JobStatus.FINISHED, true);
        assertThat(checkpointDir.resolve(JOB.value())).as("the retry deleted everything").doesNotExist();
        store.shutdown(JobStatus.FINISHED, true); // and a further call is a no-op
    }
}
