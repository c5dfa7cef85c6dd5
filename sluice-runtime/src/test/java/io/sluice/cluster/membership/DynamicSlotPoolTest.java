package io.sluice.cluster.membership;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.slots.SlotPool;
import io.sluice.graph.JobId;
import io.sluice.testutil.TestingTaskExecutorGateway;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/** The slot pool of cluster mode: task executors added on registration, removed when lost or replaced. */
class DynamicSlotPoolTest {
    private final SlotPool pool = SlotPool.dynamic();
    private final List<String> events = new CopyOnWriteArrayList<>();

    DynamicSlotPoolTest() {
        pool.addListener(new SlotPool.Listener() {
            @Override
            public void taskExecutorLost(String taskExecutorId, Set<JobId> jobs, String reason) {
                events.add("lost " + taskExecutorId + " " + jobs + ": " + reason);
            }

            @Override
            public void slotsAdded() {
                events.add("added");
            }
        });
    }

    @Test
    void slotsComeWithRegistrationAndGoWithTheTaskExecutor() throws Exception {
        JobId job = JobId.generate();
        assertThat(pool.isDynamic()).isTrue();
        assertThat(pool.totalSlots()).isZero();
        assertThat(pool.describeShortage(job, 4)).isEqualTo("waiting for 4 slots; 0 free on 0 task managers");

        pool.addTaskExecutor(new TestingTaskExecutorGateway("tm-1", 2), "i-1", "unused");
        assertThat(events).containsExactly("added");
        assertThat(pool.describeShortage(job, 4)).isEqualTo("waiting for 4 slots; 2 free on 1 task manager");
        assertThatThrownBy(() -> pool.allocate(job, 4)).isInstanceOf(SlotPool.NotEnoughSlotsException.class);
        assertThat(pool.freeSlots()).as("a failed allocation takes nothing").isEqualTo(2);

        pool.addTaskExecutor(new TestingTaskExecutorGateway("tm-2", 2), "i-2", "unused");
        List<String> placed = pool.allocate(job, 4).stream().map(g -> g.id()).toList();
        assertThat(placed).containsExactly("tm-1", "tm-1", "tm-2", "tm-2");
        assertThat(pool.freeSlots()).isZero();

        assertThat(pool.removeTaskExecutor("tm-1", "task manager tm-1 lost: no heartbeat for 6 s")).isTrue();
        assertThat(events).last().isEqualTo("lost tm-1 [" + job + "]: task manager tm-1 lost: no heartbeat for 6 s");
        assertThat(pool.totalSlots()).isEqualTo(2);
        assertThat(pool.describeShortage(job, 4)).as("slots the job holds count as available to it")
                .isEqualTo("waiting for 4 slots; 2 free on 1 task manager");
        assertThat(pool.removeTaskExecutor("tm-1", "again")).isFalse();

        pool.addTaskExecutor(new TestingTaskExecutorGateway("tm-3", 2), "i-3", "unused");
        assertThat(pool.allocate(job, 4).stream().map(g -> g.id()).toList())
                .as("the job keeps the slots it holds and takes new ones").containsExactly("tm-2", "tm-2", "tm-3", "tm-3");
        pool.release(job);
        assertThat(pool.freeSlots()).isEqualTo(4);
        assertThat(pool.freeSlotsByTaskExecutor()).containsExactly(java.util.Map.entry("tm-2", 2), java.util.Map.entry("tm-3", 2));
    }

    @Test
    void addingATaskExecutorUnderAKnownIdReplacesItAndItsSlotsAreLost() throws Exception {
        JobId job = JobId.generate();
        pool.addTaskExecutor(new TestingTaskExecutorGateway("tm-1", 2), "i-1", "unused");
        pool.allocate(job, 1);
        events.clear();

        TestingTaskExecutorGateway restarted = new TestingTaskExecutorGateway("tm-1", 3);
        assertThat(pool.addTaskExecutor(restarted, "i-2", "task manager tm-1 restarted")).isTrue();

        assertThat(events).containsExactly("lost tm-1 [" + job + "]: task manager tm-1 restarted", "added");
        assertThat(pool.instanceIdOf("tm-1")).isEqualTo("i-2");
        assertThat(pool.totalSlots()).isEqualTo(3);
        assertThat(pool.freeSlots()).as("the old slots and their owners are gone").isEqualTo(3);
        assertThat(pool.taskExecutors()).containsExactly(restarted);
    }

    @Test
    void theStaticPoolOfALocalClusterStaysAsItWas() throws Exception {
        SlotPool fixed = new SlotPool(List.of(new TestingTaskExecutorGateway("te-0", 2),
                new TestingTaskExecutorGateway("te-1", 2)));
        assertThat(fixed.isDynamic()).isFalse();
        assertThat(fixed.totalSlots()).isEqualTo(4);
        JobId job = JobId.generate();
        assertThat(fixed.allocate(job, 3).stream().map(g -> g.id()).toList()).containsExactly("te-0", "te-0", "te-1");
        assertThat(fixed.allocate(job, 3).stream().map(g -> g.id()).toList()).as("the same slots again")
                .containsExactly("te-0", "te-0", "te-1");
        assertThatThrownBy(() -> fixed.allocate(JobId.generate(), 2))
                .hasMessageContaining("needs 2 slots, but only 1 of the cluster's 4 are free");
    }
}
