package io.sluice.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sluice.checkpoint.coordinator.CheckpointCoordinator;
import io.sluice.config.RestartStrategyConfig.NoRestart;
import io.sluice.graph.JobConfig;
import io.sluice.graph.JobId;
import io.sluice.job.ExecutionAttemptId;
import io.sluice.state.KeyGroupRange;
import io.sluice.storage.LocalFileBlobStore;
import io.sluice.testutil.ManualExecutor;
import io.sluice.testutil.ManuallyTriggeredMainThreadExecutor;
import io.sluice.util.ManualClock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Savepoints in the {@link CheckpointCoordinator} on manually triggered threads and a {@link ManualClock}, with
 * real files: a savepoint waits for the checkpoint in flight, goes to the sources as a savepoint, is copied into
 * its own directory (files and metadata, relative) and never into the checkpoint store; and how it fails
 * (another one in progress, a decline, the start timeout, a stop, checkpointing off), leaving checkpoints going.
 */
class SavepointCoordinationTest {
    private static final Duration INTERVAL = Duration.ofSeconds(10);
    private static final Duration TIMEOUT = Duration.ofMinutes(1);

    @TempDir
    Path root;

    private final JobId job = JobId.of("0123456789abcdef0123456789abcdef");
    private final ManualClock clock = new ManualClock();
    private final ManuallyTriggeredMainThreadExecutor mainThread =
            new ManuallyTriggeredMainThreadExecutor("savepoint-test", clock);
    private final ManualExecutor io = new ManualExecutor();
    private final ExecutionAttemptId source = new ExecutionAttemptId(job, 1, 0, 5);
    private final ExecutionAttemptId keyed = new ExecutionAttemptId(job, 2, 0, 5);
    private final List<Long> checkpointTriggers = new ArrayList<>();
    private final List<Long> savepointTriggers = new ArrayList<>();
    private final List<Long> notifications = new ArrayList<>();
    private boolean canTrigger = true;
    private CheckpointStorage storage;
    private StandaloneCompletedCheckpointStore store;
    private CheckpointCoordinator coordinator;

    private void create(Duration interval) {
        JobConfig config = new JobConfig(interval, TIMEOUT, 2, 3, root.resolve("cp").toString(), new NoRestart(), false);
        storage = new CheckpointStorage(new LocalFileBlobStore(root.resolve("cp")), new SimpleMeterRegistry(),
                location -> new CheckpointStorage(new LocalFileBlobStore(Path.of(location)), new SimpleMeterRegistry()));
        store = new StandaloneCompletedCheckpointStore(job, 2, storage);
        coordinator = new CheckpointCoordinator(job, config, storage, store, new InMemoryCheckpointIdCounter(1),
                mainThread, io, clock, new CheckpointCoordinator.Context() {
                    @Override
                    public boolean canTriggerCheckpoint() {
                        return canTrigger;
                    }

                    @Override
                    public List<ExecutionAttemptId> tasksToTrigger() {
                        return List.of(source);
                    }

                    @Override
                    public List<ExecutionAttemptId> tasksToAcknowledge() {
                        return List.of(source, keyed);
                    }

                    @Override
                    public void triggerTask(ExecutionAttemptId task, long checkpointId, long timestampMillis) {
                        checkpointTriggers.add(checkpointId);
                    }

                    @Override
                    public void triggerTaskForSavepoint(ExecutionAttemptId task, long checkpointId, long timestampMillis,
                                                        boolean stop) {
                        savepointTriggers.add(checkpointId);
                    }

                    @Override
                    public void notifyTaskCheckpointComplete(ExecutionAttemptId task, long checkpointId) {
                        notifications.add(checkpointId);
                    }

                    @Override
                    public void failJob(Throwable cause) {
                        throw new AssertionError("the job was failed: " + cause);
                    }
                }, () -> true);
        onMain(coordinator::start);
    }

    @Test
    void aSavepointWaitsForTheCheckpointInFlightAndIsCopiedIntoItsOwnDirectoryNotIntoTheStore() throws Exception {
        create(INTERVAL);
        long checkpoint = triggerPeriodic();
        CompletableFuture<Savepoint> savepoint = onMain(() -> coordinator.triggerSavepoint(root.resolve("sp").toString()));
        mainThread.advanceTime(Duration.ofSeconds(1));
        io.triggerAll();
        mainThread.triggerAll();
        assertThat(savepointTriggers).as("not while checkpoint " + checkpoint + " is pending").isEmpty();

        acknowledgeAll(checkpoint);
        io.triggerAll();
        mainThread.triggerAll();
        mainThread.advanceTime(Duration.ofMillis(20)); // the savepoint looks again
        io.triggerAll();
        mainThread.triggerAll();
        assertThat(savepointTriggers).containsExactly(checkpoint + 1);

        acknowledgeAll(checkpoint + 1);
        io.triggerAll();
        mainThread.triggerAll();
        io.triggerAll(); // the discard of its copies in the checkpoint directory
        Savepoint done = savepoint.getNow(null);
        assertThat(done).isNotNull();
        assertThat(done.checkpointId()).isEqualTo(checkpoint + 1);
        Path dir = Path.of(java.net.URI.create(done.path()));
        assertThat(dir.getParent()).isEqualTo(root.resolve("sp"));
        assertThat(dir.getFileName().toString()).startsWith("savepoint-012345-" + (checkpoint + 1) + "-");
        assertThat(names(dir)).containsExactly("2-0.state", "_metadata");
        assertThat(done.sizeBytes()).as("its files as stored: the state file and the metadata")
                .isEqualTo(Files.size(dir.resolve("2-0.state")) + Files.size(dir.resolve("_metadata")));
        assertThat(root.resolve("cp").resolve(job.value()).resolve("chk-" + (checkpoint + 1)))
                .as("the tasks' copies are discarded").doesNotExist();
        assertThat(store.retainedIds()).as("never in the checkpoint store").containsExactly(checkpoint);
        assertThat(notifications).as("both tasks hear of the checkpoint, none of the savepoint")
                .containsExactly(checkpoint, checkpoint);

        // It reads back with its state file found in its own directory, wherever that is.
        Path moved = Files.move(dir, root.resolve("elsewhere"));
        CheckpointStorage at = new CheckpointStorage(new LocalFileBlobStore(root), new SimpleMeterRegistry());
        CompletedCheckpoint read = at.readMetadata("elsewhere/_metadata");
        assertThat(read.checkpointId()).isEqualTo(checkpoint + 1);
        assertThat(at.readTaskState(read.stateOf(2, 0).stateFile())).containsExactly(1, 2, 3);
        assertThat(moved).exists();

        assertThat(triggerPeriodic()).as("checkpoints go on after it").isEqualTo(checkpoint + 2);
    }

    @Test
    void aSecondSavepointWhileOneIsTakenADeclineAndAStopFailTheSavepointSayingWhy() throws Exception {
        create(INTERVAL);
        CompletableFuture<Savepoint> first = onMain(() -> coordinator.triggerSavepoint(root.resolve("sp").toString()));
        io.triggerAll();
        mainThread.triggerAll();
        assertThat(savepointTriggers).hasSize(1);
        CompletableFuture<Savepoint> second = onMain(() -> coordinator.triggerSavepoint(root.resolve("sp").toString()));
        assertThat(failure(second)).contains("another savepoint of this job is being taken");

        long id = savepointTriggers.get(0);
        onMain(() -> coordinator.declineCheckpoint(keyed, id, new RuntimeException("disk full in test")));
        io.triggerAll();
        assertThat(failure(first)).contains("Savepoint of job " + job).contains("declined it").contains("disk full in test");
        assertThat(root.resolve("sp")).doesNotExist();

        canTrigger = false; // tasks restarting: it waits, then a stop ends it
        CompletableFuture<Savepoint> third = onMain(() -> coordinator.triggerSavepoint(root.resolve("sp").toString()));
        mainThread.advanceTime(Duration.ofSeconds(1));
        assertThat(third).isNotDone();
        onMain(() -> coordinator.stop("the job is cancelled"));
        assertThat(failure(third)).contains("the job is cancelled");
    }

    @Test
    void aSavepointThatCannotStartWithinTheTimeoutFailsAndCheckpointingOffRefusesAtOnce() throws Exception {
        create(INTERVAL);
        canTrigger = false;
        CompletableFuture<Savepoint> waiting = onMain(() -> coordinator.triggerSavepoint(root.resolve("sp").toString()));
        mainThread.advanceTime(TIMEOUT.minusSeconds(1));
        assertThat(waiting).isNotDone();
        mainThread.advanceTime(Duration.ofSeconds(2));
        assertThat(failure(waiting)).contains("could not start within the checkpoint timeout of 60 s")
                .contains("not every task was running");
        assertThat(savepointTriggers).isEmpty();

        create(Duration.ZERO);
        assertThat(failure(onMain(() -> coordinator.triggerSavepoint(root.resolve("sp").toString()))))
                .contains("checkpointing is disabled").contains("checkpoints.interval");
    }

    private long triggerPeriodic() {
        int before = checkpointTriggers.size();
        mainThread.advanceTime(INTERVAL);
        io.triggerAll();
        mainThread.triggerAll();
        assertThat(checkpointTriggers).hasSize(before + 1);
        return checkpointTriggers.get(before);
    }

    private void acknowledgeAll(long id) {
        onMain(() -> coordinator.acknowledgeCheckpoint(source,
                id, new TaskStateHandle(1, 0, null, 0, new byte[] {(byte) id}, null)));
        String file = storage.writeTaskState(job, id, 2, 0, new byte[] {1, 2, 3});
        onMain(() -> coordinator.acknowledgeCheckpoint(keyed, id,
                new TaskStateHandle(2, 0, file, 3, null, new KeyGroupRange(0, 127))));
    }

    private static String failure(CompletableFuture<?> future) {
        assertThat(future).isCompletedExceptionally();
        try {
            future.get();
            throw new AssertionError("not failed");
        } catch (ExecutionException e) {
            assertThat(e.getCause()).isInstanceOf(CheckpointException.class);
            return e.getCause().getMessage();
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
    }

    private static List<String> names(Path dir) throws Exception {
        try (Stream<Path> files = Files.list(dir)) {
            return files.map(f -> f.getFileName().toString()).sorted().toList();
        }
    }

    private void onMain(Runnable r) {
        mainThread.execute(r);
        mainThread.triggerAll();
    }

    private <T> T onMain(Supplier<T> fn) {
        AtomicReference<T> result = new AtomicReference<>();
        mainThread.execute(() -> result.set(fn.get()));
        mainThread.triggerAll();
        return result.get();
    }
}
