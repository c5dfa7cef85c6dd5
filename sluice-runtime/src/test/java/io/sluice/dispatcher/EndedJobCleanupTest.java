package io.sluice.dispatcher;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sluice.checkpoint.CheckpointStorageRegistry;
import io.sluice.graph.JobId;
import io.sluice.ha.embedded.EmbeddedHaServices;
import io.sluice.ha.embedded.FileCheckpointPointerStore;
import io.sluice.job.JobResult;
import io.sluice.job.JobStatus;
import io.sluice.storage.BlobStore;
import io.sluice.testutil.TestingLeaderElection;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Deleting an ended job's retained checkpoints on request names the checkpoints it deleted even when the
 * storage's listing misses them. Seen in CI on S3Proxy's in-memory store (RetentionOverRestITCase, S3): the
 * deletion answered {@code deletedCheckpointIds: []} for a job with three retained checkpoints; that store,
 * listed while other checkpoint directories of the job are written and deleted, lists none of them in about
 * 4 of 1,000 listings. Real files on the local disk, real HA pointers (embedded HA services).
 */
class EndedJobCleanupTest {
    @TempDir
    Path root;

    private EmbeddedHaServices ha;
    private CheckpointStorageRegistry storages;

    @AfterEach
    void tearDown() throws Exception {
        if (storages != null) {
            storages.close();
        }
        if (ha != null) {
            ha.close();
        }
    }

    @Test
    void theDeletedCheckpointsAreNamedAndGoneEvenWhenAListingOfTheStorageMissesThem() throws Exception {
        AtomicInteger listingsToMiss = new AtomicInteger(1);
        storages = new CheckpointStorageRegistry(new SimpleMeterRegistry(),
                store -> new MissingListings(store, listingsToMiss));
        ha = new EmbeddedHaServices(root.resolve("ha"));
        Path location = root.resolve("cp");
        JobId job = JobId.generate();
        FileCheckpointPointerStore pointers = new FileCheckpointPointerStore(ha.haDirectory().resolve("checkpoints"));
        for (long id : new long[] {4, 5, 6}) {
            Path dir = Files.createDirectories(location.resolve(job.value()).resolve("chk-" + id));
            Files.write(dir.resolve("_metadata"), new byte[] {1, 2, 3});
            pointers.writePointer(job, id, job.value() + "/chk-" + id + "/_metadata");
        }
        JobResult cancelled = new JobResult(job, "retained", JobStatus.CANCELED, 1L, null, null)
                .withCheckpoints(location.toString(), false);
        TestingLeaderElection election = new TestingLeaderElection("dispatcher");
        election.startLeaderElection(new io.sluice.ha.LeaderContender() {
            @Override
            public void grantLeadership(UUID session) {
            }

            @Override
            public void revokeLeadership() {
            }

            @Override
            public String description() {
                return "the dispatcher of EndedJobCleanupTest";
            }
        });
        UUID session = election.grant();

        EndedJobCleanup.Outcome outcome = new EndedJobCleanup(ha, storages)
                .clean(cancelled, false, true, election, session);

        assertThat(listingsToMiss.get()).as("the deletion's listing of the job's checkpoints missed them").isZero();
        assertThat(outcome.deletion().deletedCheckpointIds()).containsExactly(4L, 5L, 6L);
        assertThat(outcome.deletion().location()).isEqualTo(location.toString());
        assertThat(filesUnder(location.resolve(job.value()))).as("no file left").isEmpty();
        assertThat(pointers.checkpointIds(job)).as("no pointer left").isEmpty();
        assertThat(outcome.result().mayHaveCheckpoints()).isFalse();
    }

    private static List<Path> filesUnder(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return List.of();
        }
        try (Stream<Path> files = Files.walk(dir)) {
            return files.filter(Files::isRegularFile).toList();
        }
    }

    /** A store whose next {@code misses} listings of a job's directory find nothing (a lagging listing). */
    private static final class MissingListings implements BlobStore {
        private final BlobStore store;
        private final AtomicInteger misses;

        MissingListings(BlobStore store, AtomicInteger misses) {
            this.store = store;
            this.misses = misses;
        }

        @Override
        public void put(String path, byte[] data) {
            store.put(path, data);
        }

        @Override
        public byte[] get(String path) {
            return store.get(path);
        }

        @Override
        public boolean exists(String path) {
            return store.exists(path);
        }

        @Override
        public List<String> list(String prefix) {
            List<String> found = store.list(prefix);
            if (!found.isEmpty() && misses.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
                return List.of();
            }
            return found;
        }

        @Override
        public void delete(String path) {
            store.delete(path);
        }

        @Override
        public void deleteRecursively(String prefix) {
            store.deleteRecursively(prefix);
        }

        @Override
        public String describe() {
            return store.describe();
        }
    }
}
