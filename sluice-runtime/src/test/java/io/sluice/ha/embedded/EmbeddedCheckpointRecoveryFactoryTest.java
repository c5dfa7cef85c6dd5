package io.sluice.ha.embedded;

import io.sluice.ha.CheckpointRecoveryException;
import static io.sluice.ha.embedded.CheckpointTestSupport.writeCheckpoint;
import static io.sluice.ha.embedded.RecordingContender.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sluice.checkpoint.CheckpointIdCounter;
import io.sluice.checkpoint.CheckpointStorage;
import io.sluice.checkpoint.CompletedCheckpointStore;
import io.sluice.graph.JobId;
import io.sluice.ha.LeaderElection;
import io.sluice.ha.RecoveryListener;
import io.sluice.storage.FaultInjectingBlobStore;
import io.sluice.storage.LocalFileBlobStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class EmbeddedCheckpointRecoveryFactoryTest {
    private static final JobId JOB = JobId.of("1a2b3c4d5e6f708192a3b4c5d6e7f809");

    @TempDir
    Path haDir;
    @TempDir
    Path checkpointDir;

    private EmbeddedHaServices ha;
    private FaultInjectingBlobStore blobs;
    private CheckpointStorage storage;
    private LeaderElection election;
    private UUID session;
    private final Listener listener = new Listener();
    private final ExecutorService io = Executors.newSingleThreadExecutor();

    /** Records what recovery reports. */
    static final class Listener implements RecoveryListener {
        final List<String> phases = new CopyOnWriteArrayList<>();
        final List<String> events = new CopyOnWriteArrayList<>();
        final List<Long> loaded = new CopyOnWriteArrayList<>();
        volatile int pointers = -1;

        @Override
        public void phase(String description) {
            phases.add(description);
        }

        @Override
        public void pointersFound(int count) {
            pointers = count;
        }

        @Override
        public void metadataLoaded(long checkpointId) {
            loaded.add(checkpointId);
        }

        @Override
        public void event(String message) {
            events.add(message);
        }
    }

    @BeforeEach
    void setUp() throws Exception {
        ha = new EmbeddedHaServices(haDir);
        blobs = new FaultInjectingBlobStore(new LocalFileBlobStore(checkpointDir));
        storage = new CheckpointStorage(blobs, new SimpleMeterRegistry());
        RecordingContender contender = new RecordingContender("jm-1");
        election = ha.jobLeaderElection(JOB, "jm-1");
        election.startLeaderElection(contender);
        session = contender.awaitGrant();
    }

    @AfterEach
    void tearDown() {
        blobs.heal();
        io.shutdownNow();
        ha.close();
    }

    /** Completes checkpoints 1..n through a store, as a running job would. */
    private void completeCheckpoints(int n, int maxRetained) throws Exception {
        CompletedCheckpointStore store = recover(maxRetained, false);
        for (long id = 1; id <= n; id++) {
            store.addCheckpoint(writeCheckpoint(storage, JOB, id));
        }
    }

    private CompletedCheckpointStore recover(int maxRetained, boolean allowEmpty) throws Exception {
        return ha.checkpointRecoveryFactory().createRecoveredCompletedCheckpointStore(JOB, maxRetained, storage,
                election, session, allowEmpty, listener);
    }

    private void corrupt(long id) throws Exception {
        Path metadata = checkpointDir.resolve(storage.metadataPath(JOB, id));
        byte[] data = Files.readAllBytes(metadata);
        data[data.length - 1] ^= 0x5a;
        Files.write(metadata, data);
    }

    @Test
    void recoveryReadsOnlyTheLatestMetadataHoweverManyAreRetained() throws Exception {
        completeCheckpoints(7, 5);
        long readsBefore = storage.metadataReads();

        CompletedCheckpointStore store = recover(5, false);

        assertThat(storage.metadataReads() - readsBefore).isEqualTo(1);
        assertThat(store.latest().orElseThrow().checkpointId()).isEqualTo(7L);
        assertThat(store.retainedIds()).containsExactly(3L, 4L, 5L, 6L, 7L);
        assertThat(listener.phases).first().isEqualTo("listing checkpoint pointers");
        assertThat(listener.pointers).isEqualTo(5);
        assertThat(listener.loaded).containsExactly(7L);
        assertThat(listener.events).isEmpty();
    }

    @Test
    void aCorruptLatestCheckpointFallsBackToThePreviousOne() throws Exception {
        completeCheckpoints(3, 3);
        corrupt(3);

        CompletedCheckpointStore store = recover(3, false);

        assertThat(store.latest().orElseThrow().checkpointId()).isEqualTo(2L);
        assertThat(listener.loaded).containsExactly(2L);
        assertThat(listener.events).singleElement().asString()
                .startsWith("Checkpoint 3 of job " + JOB + " is unusable (corrupt (")
                .contains("checksum mismatch")
                .endsWith("falling back to checkpoint 2");
        assertThat(storage.listCheckpointIds(JOB)).as("unusable checkpoints are not deleted").contains(3L);
    }

    @Test
    void noUsableCheckpointFailsUnlessStartingEmptyIsAllowed() throws Exception {
        completeCheckpoints(3, 3);
        corrupt(3);
        Files.delete(checkpointDir.resolve(storage.metadataPath(JOB, 2)));
        corrupt(1);

        assertThatThrownBy(() -> recover(3, false))
                .isInstanceOf(CheckpointRecoveryException.class)
                .hasMessageStartingWith("None of the 3 retained checkpoints of job " + JOB + " could be read (chk-3: corrupt (")
                .hasMessageContaining("chk-2: missing, chk-1: corrupt (")
                .hasMessageContaining("set allowStartWithoutCheckpoint to start empty");

        listener.events.clear();
        CompletedCheckpointStore store = recover(3, true);
        assertThat(store.latest()).isEmpty();
        assertThat(store.retainedIds()).containsExactly(1L, 2L, 3L);
        assertThat(listener.events).last().asString().contains("None of the 3 retained checkpoints")
                .contains("Starting from empty state");
    }

    @Test
    void interruptedRecoveryThrowsPromptly() throws Exception {
        completeCheckpoints(2, 2);
        blobs.hang();
        AtomicReference<Thread> recovering = new AtomicReference<>();
        CompletableFuture<CompletedCheckpointStore> recovery = CompletableFuture.supplyAsync(() -> {
            recovering.set(Thread.currentThread());
            try {
                return recover(2, false);
            } catch (Exception e) {
                throw new CompletionException(e);
            }
        }, io);

        await().atMost(WAIT).until(() -> blobs.blockedCalls() == 1);
        recovering.get().interrupt();

        assertThatThrownBy(() -> recovery.get(WAIT.toMillis(), TimeUnit.MILLISECONDS))
                .isInstanceOf(ExecutionException.class)
                .cause().as("recovery itself must throw InterruptedException, not a storage error")
                .isInstanceOf(InterruptedException.class)
                .hasMessageContaining("Checkpoint recovery of job " + JOB + " was cancelled");
        assertThat(listener.loaded).isEmpty();
    }

    @Test
    void checkpointIdsContinueAcrossCounterInstances() throws Exception {
        CheckpointIdCounter first = ha.checkpointRecoveryFactory().createCheckpointIdCounter(JOB, 1);
        assertThat(first.getAndIncrement()).isEqualTo(1L);
        assertThat(first.getAndIncrement()).isEqualTo(2L);

        try (EmbeddedHaServices restarted = new EmbeddedHaServices(haDir)) {
            CheckpointIdCounter second = restarted.checkpointRecoveryFactory().createCheckpointIdCounter(JOB, 1);
            assertThat(second.peek()).isEqualTo(3L);
            assertThat(second.getAndIncrement()).isEqualTo(3L);
        }

        CheckpointIdCounter third = ha.checkpointRecoveryFactory().createCheckpointIdCounter(JOB, 10);
        assertThat(third.getAndIncrement()).as("the minimum wins when it is larger").isEqualTo(10L);
        assertThat(ha.checkpointRecoveryFactory().createCheckpointIdCounter(JOB, 0).peek()).isEqualTo(11L);
    }
}
