package io.sluice.jobmaster.runner;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sluice.checkpoint.CheckpointStorage;
import io.sluice.checkpoint.CompletedCheckpoint;
import io.sluice.checkpoint.StandaloneCompletedCheckpointStore;
import io.sluice.graph.JobId;
import io.sluice.storage.LocalFileBlobStore;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A job started from another job's checkpoint ({@code checkpoints.restore-from}) falls back past it
 * like past its own: before, the fallback threw {@code UnsupportedOperationException}, which the
 * job master took for a storage error and retried for ever.
 */
class RestoredCheckpointStoreTest {
    private static final JobId OTHER = JobId.of("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa");
    private static final JobId JOB = JobId.of("bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb");

    @TempDir
    Path root;

    @Test
    void theCheckpointStartedFromIsTheLastCandidateAndComesBackWhenUnusableOnesAreRetried() throws Exception {
        CheckpointStorage storage = new CheckpointStorage(new LocalFileBlobStore(root), new SimpleMeterRegistry());
        StandaloneCompletedCheckpointStore own = new StandaloneCompletedCheckpointStore(JOB, 3, storage);
        CompletedCheckpoint from = checkpoint(OTHER, 5);
        RestoredCheckpointStore store = new RestoredCheckpointStore(own, from);
        List<String> events = new ArrayList<>();

        assertThat(store.latest()).contains(from);
        assertThat(store.fallBackFrom(5, events::add)).as("nothing older").isEmpty();
        assertThat(store.latest()).isEmpty();
        assertThat(store.retryUnusable(events::add)).contains(from);
        assertThat(store.latest()).contains(from);

        CompletedCheckpoint own6 = checkpoint(JOB, 6);
        store.addCheckpoint(own6);
        assertThat(store.latest()).contains(own6);
        assertThat(store.fallBackFrom(6, events::add)).as("the one started from is older").contains(from);
        assertThat(store.fallBackFrom(5, events::add)).isEmpty();
        assertThat(store.latest()).isEqualTo(Optional.empty());
        assertThat(store.retainedIds()).as("never among the job's own").containsExactly(6L);
    }

    private static CompletedCheckpoint checkpoint(JobId job, long id) {
        return new CompletedCheckpoint(job, id, 0, 0, List.of(), job.value() + "/chk-" + id + "/_metadata");
    }
}
