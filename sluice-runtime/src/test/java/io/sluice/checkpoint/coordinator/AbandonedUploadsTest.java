package io.sluice.checkpoint.coordinator;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sluice.checkpoint.CheckpointStorage;
import io.sluice.checkpoint.CompletedCheckpoint;
import io.sluice.checkpoint.SharedStateRegistry;
import io.sluice.checkpoint.TaskStateHandle;
import io.sluice.graph.JobId;
import io.sluice.state.IncrementalStateHandle;
import io.sluice.state.KeyGroupRange;
import io.sluice.storage.LocalFileBlobStore;
import io.sluice.testutil.ManuallyTriggeredMainThreadExecutor;
import io.sluice.util.ManualClock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.Executor;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link AbandonedUploads} with real storage on local files, a manual main thread and an I/O executor the test runs:
 * when a checkpoint completes, the shared files uploaded for the ids since the previous completed one that the
 * registry does not know are deleted, and nothing else.
 */
class AbandonedUploadsTest {
    private static final JobId JOB = JobId.of("00112233445566778899aabbccddeeff");

    @TempDir
    Path root;

    private final ManualClock clock = new ManualClock();
    private final ManuallyTriggeredMainThreadExecutor main = new ManuallyTriggeredMainThreadExecutor("test", clock);
    private final ArrayDeque<Runnable> io = new ArrayDeque<>();
    private final Executor ioExecutor = io::add;
    private final SharedStateRegistry registry = new SharedStateRegistry(JOB);
    private CheckpointStorage storage;
    private Path table;

    @BeforeEach
    void setUp() throws Exception {
        storage = new CheckpointStorage(new LocalFileBlobStore(root.resolve("storage")), new SimpleMeterRegistry());
        table = Files.write(root.resolve("000001.sst"), new byte[] {1, 2, 3});
    }

    @Test
    void theUploadsOfCheckpointsThatDidNotCompleteGoWhenALaterOneCompletesButNotTheFilesTheRegistryKnows() {
        String beforeRecovery = upload(2);
        String abandoned3 = upload(3);
        String abandoned5 = upload(5);
        String registered5 = upload(5);
        String ofCompleted6 = upload(6);
        String pending7 = upload(7);
        // A registered checkpoint that (against the design) refers to an upload of 5, and checkpoint 6's own.
        onMain(() -> registry.register(checkpoint(6, registered5, ofCompleted6)));
        AbandonedUploads sweep = new AbandonedUploads(JOB, storage, main, ioExecutor, registry, 2,
                new CheckpointDiscarder(JOB, storage, main, ioExecutor, registry)::deleteShared, id -> false);
        onMain(() -> sweep.triggered(3)); // 3 to 5 were this job master's: no directory of theirs is looked at

        onMain(() -> sweep.completed(6));
        assertThat(exists(abandoned3)).as("nothing deleted on the main thread").isTrue();
        runAll();

        assertThat(exists(abandoned3)).as("uploaded for 3, which did not complete").isFalse();
        assertThat(exists(abandoned5)).as("uploaded for 5, which did not complete").isFalse();
        assertThat(exists(registered5)).as("known to the registry").isTrue();
        assertThat(exists(ofCompleted6)).as("the completed checkpoint's").isTrue();
        assertThat(exists(pending7)).as("of a checkpoint after the completed one").isTrue();
        assertThat(exists(beforeRecovery)).as("of an id the job master recovered through").isTrue();
        assertThat(registry.deleting()).as("the deletes were confirmed").isEmpty();

        complete(sweep, 8);
        assertThat(exists(pending7)).as("7 did not complete either").isFalse();
        assertThat(exists(registered5)).isTrue();
        assertThat(exists(ofCompleted6)).isTrue();
    }

    @Test
    void theDeletesAreAmongTheRegistrysUntilConfirmedSoThatTheNextMetadataNamesThem() {
        String abandoned = upload(4);
        AbandonedUploads sweep = new AbandonedUploads(JOB, storage, main, ioExecutor, registry, 0, files -> { }, id -> false);

        complete(sweep, 5);

        assertThat(exists(abandoned)).as("the deleter given did nothing").isTrue();
        assertThat(registry.deleting()).containsExactly(abandoned);
        assertThat(registry.references()).containsEntry(abandoned, List.of());
    }

    @Test
    void anUploadACrashCutOffMidFileIsDiscardedWhenALaterCheckpointCompletes() throws Exception {
        Path cutOff3 = unfinishedUpload(3);
        Path running7 = unfinishedUpload(7);
        AbandonedUploads sweep = sweep(2, 3);

        onMain(() -> sweep.completed(4));
        assertThat(cutOff3).as("nothing deleted on the main thread").exists();
        runAll();

        assertThat(cutOff3).as("the unfinished write for 3, which did not complete").doesNotExist();
        assertThat(running7).as("of a checkpoint after the completed one").exists();
    }

    @Test
    void consecutiveCompletionsListNothing() {
        int[] listings = new int[1];
        storage = new CheckpointStorage(new io.sluice.storage.ForwardingBlobStore(
                new LocalFileBlobStore(root.resolve("storage"))) {
            @Override
            public List<String> list(String prefix) {
                listings[0]++;
                return super.list(prefix);
            }
        }, new SimpleMeterRegistry());
        AbandonedUploads sweep = sweep(3, 4);

        onMain(() -> sweep.completed(4));
        onMain(() -> sweep.completed(5));
        complete(sweep, 5);
        assertThat(listings[0]).isZero();

        complete(sweep, 7);
        assertThat(listings[0]).as("one listing, of checkpoint 6's uploads").isEqualTo(1);
    }

    @Test
    void theDirectoriesOfAPreviousLeadersCheckpointsThatDidNotCompleteGoButNotThoseOfThisJobMastersOwn() {
        // Recovered through 4; a previous leader triggered 5 and 6 (5 aborted and discarded by it, 6 pending when it
        // died); this job master triggers 7 (aborted: its own discard is not this class's), 8 and 9.
        String ofRecovered = privateFile(4);
        String ofPending6 = privateFile(6);
        String ofOwnAborted7 = privateFile(7);
        String ofRetained8 = privateFile(8);
        AbandonedUploads sweep = new AbandonedUploads(JOB, storage, main, ioExecutor, registry, 4, files -> { },
                id -> id == 8);
        onMain(() -> sweep.triggered(7));
        onMain(() -> sweep.triggered(8));
        onMain(() -> sweep.triggered(9));

        onMain(() -> sweep.completed(9));
        assertThat(exists(ofPending6)).as("nothing deleted on the main thread").isTrue();
        runAll();

        assertThat(exists(ofPending6)).as("the previous leader's checkpoint 6, which did not complete").isFalse();
        assertThat(Files.exists(root.resolve("storage").resolve(JOB.value()).resolve("chk-6")))
                .as("its directory").isFalse();
        assertThat(exists(ofRecovered)).as("of the recovered checkpoint").isTrue();
        assertThat(exists(ofOwnAborted7)).as("of this job master's own checkpoint").isTrue();
        assertThat(exists(ofRetained8)).as("of a retained checkpoint").isTrue();
    }

    @Test
    void aDirectoryOfAnInheritedIdThatTheStoreRetainsStays() {
        String retainedFile = privateFile(6);
        AbandonedUploads sweep = new AbandonedUploads(JOB, storage, main, ioExecutor, registry, 4, files -> { },
                id -> id == 6);
        onMain(() -> sweep.triggered(8));

        complete(sweep, 8);

        assertThat(exists(retainedFile)).isTrue();
    }

    @Test
    void manyInheritedIdsAreFoundWithOneListing() {
        String ofPending30 = privateFile(30);
        String ofRecovered = privateFile(3);
        AbandonedUploads sweep = sweep(3, 40);

        complete(sweep, 40);

        assertThat(exists(ofPending30)).isFalse();
        assertThat(exists(ofRecovered)).isTrue();
    }

    @Test
    void aListingThatFailsIsTriedAgainWhenTheNextCheckpointCompletes() {
        FailingLists lists = failingLists(1);
        String abandoned3 = upload(3);
        AbandonedUploads sweep = new AbandonedUploads(JOB, storage, main, ioExecutor, registry, 2,
                new CheckpointDiscarder(JOB, storage, main, ioExecutor, registry)::deleteShared, id -> false);
        onMain(() -> sweep.triggered(3));

        complete(sweep, 4);
        assertThat(lists.calls).as("the listing was made, and failed").isEqualTo(1);
        assertThat(exists(abandoned3)).isTrue();
        assertThat(askMain(sweep::failedRanges)).isEqualTo(1);

        complete(sweep, 5);
        assertThat(lists.calls).as("tried again at the next completion").isEqualTo(2);
        assertThat(exists(abandoned3)).as("uploaded for 3, which did not complete").isFalse();
        assertThat(askMain(sweep::failedRanges)).isZero();
    }

    @Test
    void aLookThatKeepsFailingWaitsTwiceAsManyCompletionsEachTime() {
        FailingLists lists = failingLists(3);
        String abandoned3 = upload(3);
        AbandonedUploads sweep = sweep(2, 3);
        // Consecutive ids from 5 on: no completion after the first has a range of its own to list.
        List<Integer> listingsAfterEachCompletion = new java.util.ArrayList<>();
        for (long id = 4; id <= 12; id++) {
            long completed = id;
            onMain(() -> sweep.completed(completed));
            runAll();
            listingsAfterEachCompletion.add(lists.calls);
        }

        // Failed at the 1st completion, tried at the 2nd (failed), the 4th (failed), the 8th (listed).
        assertThat(listingsAfterEachCompletion).containsExactly(1, 2, 2, 3, 3, 3, 3, 4, 4);
        assertThat(registry.deleting()).as("found and given to the deleter").containsExactly(abandoned3);
    }

    @Test
    void aPreviousLeadersDirectoryWhoseListingFailedGoesAtTheNextCompletion() {
        FailingLists lists = failingLists(1);
        String ofPending6 = privateFile(6);
        AbandonedUploads sweep = sweep(5, 7);

        complete(sweep, 7);
        assertThat(exists(ofPending6)).as("the directory listing failed").isTrue();

        complete(sweep, 8);
        assertThat(exists(ofPending6)).isFalse();
        assertThat(lists.calls).as("directories and uploads of 6, then the directories again").isEqualTo(3);
    }

    @Test
    void aPreviousLeadersDirectoryWhoseDeleteFailedGoesAtTheNextCompletion() {
        int[] deleteFailures = {1};
        storage = new CheckpointStorage(new io.sluice.storage.ForwardingBlobStore(
                new LocalFileBlobStore(root.resolve("storage"))) {
            @Override
            public void deleteRecursively(String prefix) {
                if (deleteFailures[0]-- > 0) {
                    throw new io.sluice.storage.StorageException("Deleting " + prefix + " failed (injected)");
                }
                super.deleteRecursively(prefix);
            }
        }, new SimpleMeterRegistry());
        String ofPending6 = privateFile(6);
        AbandonedUploads sweep = sweep(5, 7);

        complete(sweep, 7);
        assertThat(exists(ofPending6)).as("the delete failed").isTrue();
        assertThat(askMain(sweep::failedRanges)).isEqualTo(1);

        complete(sweep, 8);
        assertThat(exists(ofPending6)).isFalse();
        assertThat(askMain(sweep::failedRanges)).isZero();
    }

    @Test
    void atMostSoManyFailedRangesAreKept() {
        failingLists(Integer.MAX_VALUE);
        AbandonedUploads sweep = sweep(0, 1);
        for (long id = 2; id <= 2 * (AbandonedUploads.MAX_FAILED + 10); id += 2) {
            long completed = id;
            onMain(() -> sweep.completed(completed));
            runAll();
        }
        assertThat(askMain(sweep::failedRanges)).isEqualTo(AbandonedUploads.MAX_FAILED);
    }

    /** Listings in the storage fail as often as {@code failures} says, then work. */
    private static final class FailingLists {
        int failures;
        int calls;
    }

    private FailingLists failingLists(int failures) {
        FailingLists lists = new FailingLists();
        lists.failures = failures;
        storage = new CheckpointStorage(new io.sluice.storage.ForwardingBlobStore(
                new LocalFileBlobStore(root.resolve("storage"))) {
            @Override
            public List<String> list(String prefix) {
                lists.calls++;
                if (lists.failures > 0) {
                    lists.failures--;
                    throw new io.sluice.storage.StorageException("Listing " + prefix + " failed (injected)");
                }
                return super.list(prefix);
            }
        }, new SimpleMeterRegistry());
        return lists;
    }

    /** What a writer killed while it wrote a shared file for {@code checkpointId} leaves: its hidden temporary file. */
    private Path unfinishedUpload(long checkpointId) throws java.io.IOException {
        Path shared = Files.createDirectories(root.resolve("storage").resolve(JOB.value()).resolve("shared"));
        return Files.write(shared.resolve(".ck" + checkpointId + "-1-0-" + java.util.UUID.randomUUID() + "-000009.sst."
                + java.util.UUID.randomUUID() + LocalFileBlobStore.IN_PROGRESS_SUFFIX), new byte[] {1});
    }

    private String privateFile(long checkpointId) {
        return storage.writePrivateFile(JOB, checkpointId, 1, 0, "OPTIONS-000007", table);
    }

    private String upload(long checkpointId) {
        return storage.writeSharedFile(JOB, checkpointId, 1, 0, "000001.sst", table);
    }

    private boolean exists(String path) {
        return Files.exists(root.resolve("storage").resolve(path));
    }

    private static CompletedCheckpoint checkpoint(long id, String... sharedFiles) {
        List<IncrementalStateHandle.StateFile> files = java.util.Arrays.stream(sharedFiles)
                .map(f -> new IncrementalStateHandle.StateFile(f.substring(f.lastIndexOf('-') + 1), f, 3)).toList();
        TaskStateHandle handle = TaskStateHandle.incremental(1, 0, new IncrementalStateHandle(KeyGroupRange.of(0, 0),
                128, new byte[] {1}, files, List.of()), null);
        return new CompletedCheckpoint(JOB, id, 1, 2, List.of(handle), JOB.value() + "/chk-" + id + "/_metadata");
    }

    /**
     * A sweep of a job master that recovered through {@code recoveredThrough} and first triggered {@code
     * firstTriggered}; its deleter does nothing, and its store retains no id.
     */
    private AbandonedUploads sweep(long recoveredThrough, long firstTriggered) {
        AbandonedUploads sweep = new AbandonedUploads(JOB, storage, main, ioExecutor, registry, recoveredThrough,
                files -> { }, id -> false);
        onMain(() -> sweep.triggered(firstTriggered));
        return sweep;
    }

    /** Checkpoint {@code id} completes, and the I/O and main-thread work it starts runs to its end. */
    private void complete(AbandonedUploads sweep, long id) {
        onMain(() -> sweep.completed(id));
        runAll();
    }

    private void onMain(Runnable action) {
        main.execute(action);
        main.triggerAll();
    }

    private <T> T askMain(java.util.function.Supplier<T> query) {
        Object[] result = new Object[1];
        onMain(() -> result[0] = query.get());
        @SuppressWarnings("unchecked")
        T value = (T) result[0];
        return value;
    }

    private void runAll() {
        while (!io.isEmpty() || main.numQueued() > 0) {
            Runnable next = io.poll();
            if (next != null) {
                next.run();
            }
            main.triggerAll();
        }
    }
}
