package io.sluice.cluster.membership;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.slots.SlotPool;
import io.sluice.graph.JobId;
import io.sluice.testutil.ManuallyTriggeredMainThreadExecutor;
import io.sluice.testutil.TestingTaskExecutorGateway;
import io.sluice.util.ManualClock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/** The job manager's side: registration checks, dynamic slots, heartbeat timeout, replaced task executors. */
class TaskExecutorRegistryTest {
    private static final Duration SECOND = Duration.ofSeconds(1);

    private final ManualClock clock = new ManualClock();
    private final ManuallyTriggeredMainThreadExecutor mainThread = new ManuallyTriggeredMainThreadExecutor("registry", clock);
    private final SlotPool pool = SlotPool.dynamic();
    private final AtomicBoolean leading = new AtomicBoolean(true);
    private final List<String> lost = new CopyOnWriteArrayList<>();
    private final TaskExecutorRegistry registry = new TaskExecutorRegistry("jobmanager-0", "prod", pool, leading::get,
            () -> Optional.of("sluice-jm://jm-1:6123/jobmanager-1"), mainThread, clock, HeartbeatSettings.DEFAULT);

    TaskExecutorRegistryTest() {
        pool.addListener(new SlotPool.Listener() {
            @Override
            public void taskExecutorLost(String taskExecutorId, Set<JobId> jobs, String reason) {
                lost.add(reason);
            }

            @Override
            public void slotsAdded() {
            }
        });
        registry.start();
        mainThread.triggerAll();
    }

    @Test
    void aRegisteredTaskExecutorKeepsItsSlotsWhileItSendsHeartbeatsAndLosesThemSixSecondsAfterTheLast() {
        RegistrationResponse r = register("tm-1", "i-1", 2, "prod");
        assertThat(r.outcome()).isEqualTo(RegistrationResponse.Outcome.ACCEPTED);
        assertThat(r.jobManagerId()).isEqualTo("jobmanager-0");
        assertThat(pool.totalSlots()).isEqualTo(2);

        for (int i = 0; i < 20; i++) {
            mainThread.advanceTime(SECOND);
            assertThat(heartbeat("tm-1", r.registrationId())).isEqualTo(HeartbeatResponse.ACCEPTED);
        }
        assertThat(pool.totalSlots()).as("20 s of heartbeats every second").isEqualTo(2);

        mainThread.advanceTime(Duration.ofMillis(5_900));
        assertThat(pool.totalSlots()).as("5.9 s after the last heartbeat").isEqualTo(2);
        assertThat(lost).isEmpty();
        mainThread.advanceTime(Duration.ofMillis(1_100));

        assertThat(pool.totalSlots()).isZero();
        assertThat(lost).containsExactly("task manager tm-1 lost: no heartbeat for 6 s");
        assertThat(heartbeat("tm-1", r.registrationId())).as("a late heartbeat is told to register again")
                .isEqualTo(HeartbeatResponse.UNKNOWN_REGISTRATION);
        assertThat(onMain(registry.registeredTaskExecutors())).isEmpty();
    }

    @Test
    void aTaskManagerOfAnotherClusterIsRejectedSayingBothClusterIds() {
        RegistrationResponse r = register("tm-1", "i-1", 2, "staging");

        assertThat(r.outcome()).isEqualTo(RegistrationResponse.Outcome.WRONG_CLUSTER);
        assertThat(r.registrationId()).isNull();
        assertThat(r.message()).startsWith("task manager tm-1 belongs to cluster 'staging', this job manager"
                + " (jobmanager-0) serves 'prod'");
        assertThat(pool.totalSlots()).isZero();
    }

    @Test
    void aStandbyRejectsNamingTheLeader() {
        leading.set(false);
        RegistrationResponse r = register("tm-1", "i-1", 2, "prod");

        assertThat(r.outcome()).isEqualTo(RegistrationResponse.Outcome.NOT_LEADER);
        assertThat(r.message()).isEqualTo("job manager jobmanager-0 is a standby and does not take task managers; the"
                + " leader is sluice-jm://jm-1:6123/jobmanager-1");
        assertThat(pool.totalSlots()).isZero();
    }

    @Test
    void aRestartedTaskExecutorReplacesItsOldRegistrationWhoseSlotsAndTasksAreLost() {
        RegistrationResponse first = register("tm-1", "i-1", 2, "prod");
        RegistrationResponse second = register("tm-1", "i-2", 4, "prod");

        assertThat(second.isAccepted()).isTrue();
        assertThat(second.registrationId()).isNotEqualTo(first.registrationId());
        assertThat(lost).containsExactly("task manager tm-1 restarted (process instance i-1 replaced by i-2); its tasks"
                + " are gone");
        assertThat(pool.totalSlots()).isEqualTo(4);
        assertThat(pool.instanceIdOf("tm-1")).isEqualTo("i-2");
        assertThat(heartbeat("tm-1", first.registrationId())).isEqualTo(HeartbeatResponse.UNKNOWN_REGISTRATION);
        assertThat(heartbeat("tm-1", second.registrationId())).isEqualTo(HeartbeatResponse.ACCEPTED);
    }

    @Test
    void theSameProcessRegisteringAgainAlsoReplacesItsRegistration() {
        register("tm-1", "i-1", 2, "prod");
        RegistrationResponse again = register("tm-1", "i-1", 2, "prod");

        assertThat(again.isAccepted()).isTrue();
        assertThat(lost).containsExactly("task manager tm-1 registered again (it had lost this job manager and cancelled"
                + " its tasks)");
        assertThat(pool.totalSlots()).isEqualTo(2);
    }

    @Test
    void losingLeadershipDropsEveryRegistrationAndADisconnectDropsOneAtOnce() {
        RegistrationResponse a = register("tm-1", "i-1", 2, "prod");
        register("tm-2", "i-2", 2, "prod");
        registry.disconnectTaskExecutor("tm-1", a.registrationId(), "the task manager shuts down");
        mainThread.triggerAll();
        assertThat(lost).containsExactly("task manager tm-1 disconnected: the task manager shuts down");
        assertThat(pool.taskExecutorIds()).containsExactly("tm-2");

        leading.set(false);
        mainThread.advanceTime(SECOND);

        assertThat(pool.totalSlots()).isZero();
        assertThat(lost).last().isEqualTo("job manager jobmanager-0 no longer leads; task manager tm-2 must register again");
    }

    private RegistrationResponse register(String id, String instance, int slots, String cluster) {
        return onMain(registry.registerTaskExecutor(new TaskExecutorRegistration(id, instance, slots, null, cluster),
                new TestingTaskExecutorGateway(id, slots)));
    }

    private HeartbeatResponse heartbeat(String id, UUID registrationId) {
        return onMain(registry.heartbeatFromTaskExecutor(id, registrationId));
    }

    private <T> T onMain(CompletableFuture<T> future) {
        mainThread.triggerAll();
        assertThat(future).isDone();
        return future.join();
    }
}
