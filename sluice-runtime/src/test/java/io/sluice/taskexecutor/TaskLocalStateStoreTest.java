package io.sluice.taskexecutor;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.graph.JobId;
import org.junit.jupiter.api.Test;

class TaskLocalStateStoreTest {
    private final JobId job = JobId.generate();
    private final TaskLocalStateStore store = new TaskLocalStateStore();

    @Test
    void aCopyIsServedOnlyForTheSameCheckpointFileAndSize() {
        store.store(job, 2, 1, 7, "j/chk-7/2-1.state", new byte[] {1, 2, 3});
        assertThat(store.retrieve(job, 2, 1, 7, "j/chk-7/2-1.state", 3)).contains(new byte[] {1, 2, 3});
        assertThat(store.retrieve(job, 2, 1, 6, "j/chk-7/2-1.state", 3)).as("other checkpoint").isEmpty();
        assertThat(store.retrieve(job, 2, 1, 7, "j/chk-7/other.state", 3)).as("other file").isEmpty();
        assertThat(store.retrieve(job, 2, 1, 7, "j/chk-7/2-1.state", 4)).as("other size").isEmpty();
        assertThat(store.retrieve(job, 2, 0, 7, "j/chk-7/2-1.state", 3)).as("other subtask").isEmpty();
        assertThat(store.hits()).isEqualTo(1);
        assertThat(store.misses()).isEqualTo(4);
    }

    @Test
    void aCompletedCheckpointDropsOlderCopiesAndCopiesAreBounded() {
        for (long id = 1; id <= 3; id++) {
            store.store(job, 1, 0, id, "f" + id, new byte[] {(byte) id});
        }
        store.confirm(job, 1, 0, 2);
        assertThat(store.retrieve(job, 1, 0, 1, "f1", 1)).isEmpty();
        assertThat(store.retrieve(job, 1, 0, 2, "f2", 1)).isPresent();
        assertThat(store.retrieve(job, 1, 0, 3, "f3", 1)).isPresent();

        for (long id = 4; id <= 10; id++) {
            store.store(job, 1, 0, id, "f" + id, new byte[] {(byte) id});
        }
        assertThat(store.retrieve(job, 1, 0, 6, "f6", 1)).as("beyond the bound").isEmpty();
        assertThat(store.retrieve(job, 1, 0, 7, "f7", 1)).isPresent();
        assertThat(store.retrieve(job, 1, 0, 10, "f10", 1)).isPresent();
    }

    @Test
    void discardingASubtaskOrAJobRemovesItsCopies() {
        JobId other = JobId.generate();
        store.store(job, 1, 0, 1, "a", new byte[1]);
        store.store(job, 1, 1, 1, "b", new byte[1]);
        store.store(other, 1, 0, 1, "c", new byte[1]);
        store.discard(job, 1, 0);
        assertThat(store.retrieve(job, 1, 0, 1, "a", 1)).isEmpty();
        assertThat(store.retrieve(job, 1, 1, 1, "b", 1)).isPresent();
        store.discardJob(job);
        assertThat(store.retrieve(job, 1, 1, 1, "b", 1)).isEmpty();
        assertThat(store.retrieve(other, 1, 0, 1, "c", 1)).isPresent();
    }
}
