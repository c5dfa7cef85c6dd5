package io.sluice.cluster.membership;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.slots.SlotPool;
import io.sluice.graph.JobId;
import io.sluice.protocol.TaskExecutorGateway;
import io.sluice.testutil.ManuallyTriggeredMainThreadExecutor;
import io.sluice.testutil.TestingTaskExecutorGateway;
import io.sluice.util.ManualClock;
import java.net.ConnectException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * The task executor's side against real registries, both on manually triggered main threads over
 * one {@link ManualClock}: registration with backoff, heartbeats and their timeout in both
 * directions, leader changes, a wrong cluster id, and a job manager that forgot the registration.
 */
class JobManagerConnectorTest {
    private static final String A = new JobManagerAddress("jobmanager-0", "jm-0", 6123, "http://jm-0:8081").encode();
    private static final String B = new JobManagerAddress("jobmanager-1", "jm-1", 6123, null).encode();

    private final MembershipThreads threads = new MembershipThreads();
    private final ManualClock clock = threads.clock;
    private final ManuallyTriggeredMainThreadExecutor teMain = threads.taskExecutor;
    private final ManuallyTriggeredMainThreadExecutor jmMain = threads.jobManager;
    private final TestingLeaderRetrieval leader = new TestingLeaderRetrieval();
    private final Map<String, JobManagerSide> jobManagers = new HashMap<>();
    private final List<String> cancellations = new CopyOnWriteArrayList<>();
    private final TaskExecutorGateway taskExecutor = new TestingTaskExecutorGateway("tm-1", 2);
    private JobManagerConnector connector;
    /** What cancelling all tasks returns: completes once they have ended (at once by default). */
    private volatile CompletableFuture<Void> tasksEnded = CompletableFuture.completedFuture(null);

    /** One job manager: pool, registry, whether it leads, and a link to it that can fail or go silent. */
    private final class JobManagerSide implements TaskExecutorRegistryGateway {
        final SlotPool pool = SlotPool.dynamic();
        final AtomicBoolean leading = new AtomicBoolean(true);
        final TaskExecutorRegistry registry;
        final List<String> lost = new CopyOnWriteArrayList<>();
        final List<Long> registrationAttemptMillis = new CopyOnWriteArrayList<>();
        volatile String link = "up"; // up, refused, silent

        JobManagerSide(String id, String clusterId) {
            registry = new TaskExecutorRegistry(id, clusterId, pool, leading::get, leader::currentLeader, jmMain, clock,
                    HeartbeatSettings.DEFAULT);
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
        }

        private <T> CompletableFuture<T> over(java.util.function.Supplier<CompletableFuture<T>> call) {
            return switch (link) {
                case "up" -> call.get();
                case "refused" -> CompletableFuture.failedFuture(new ConnectException("Connection refused"));
                default -> new CompletableFuture<>(); // a silent peer: no answer ever
            };
        }

        @Override
        public CompletableFuture<RegistrationResponse> registerTaskExecutor(TaskExecutorRegistration registration,
                                                                            TaskExecutorGateway gateway) {
            registrationAttemptMillis.add(clock.currentTimeMillis());
            return over(() -> registry.registerTaskExecutor(registration, gateway));
        }

        @Override
        public CompletableFuture<HeartbeatResponse> heartbeatFromTaskExecutor(String id, UUID registrationId) {
            return over(() -> registry.heartbeatFromTaskExecutor(id, registrationId));
        }

        @Override
        public void disconnectTaskExecutor(String id, UUID registrationId, String reason) {
            if (link.equals("up")) {
                registry.disconnectTaskExecutor(id, registrationId, reason);
            }
        }
    }

    private JobManagerSide jobManager(String address, String clusterId) {
        JobManagerSide side = new JobManagerSide(JobManagerAddress.parse(address).id(), clusterId);
        jobManagers.put(JobManagerAddress.parse(address).id(), side);
        return side;
    }

    private void startConnector(String clusterId) {
        startConnector(clusterId, false);
    }

    /** Connect attempts of the loss confirmation, pending until the test answers them. */
    private final List<CompletableFuture<Void>> probeAttempts = new CopyOnWriteArrayList<>();

    /** A probe that maps job manager A's side to jm-0:6123 and B's to jm-1:6123. */
    private final ConnectionLossConfirmer.Probe probe = new ConnectionLossConfirmer.Probe() {
        @Override
        public Optional<io.sluice.rpc.remote.RpcAddress> addressOf(Object gateway) {
            return Optional.of(new io.sluice.rpc.remote.RpcAddress(
                    gateway == jobManagers.get("jobmanager-0") ? "jm-0" : "jm-1", 6123));
        }

        @Override
        public CompletableFuture<Void> connect(io.sluice.rpc.remote.RpcAddress address) {
            CompletableFuture<Void> f = new CompletableFuture<>();
            probeAttempts.add(f);
            return f;
        }
    };

    private void refuseProbes() {
        for (CompletableFuture<Void> f : probeAttempts) {
            f.completeExceptionally(new ConnectException("Connection refused: jm-0/10.0.0.1:6123"));
        }
        probeAttempts.clear();
    }

    private void startConnector(String clusterId, boolean confirmConnectionLoss) {
        connector = new JobManagerConnector(new TaskExecutorRegistration("tm-1", "instance-1", 2, null, clusterId),
                taskExecutor, reason -> {
                    cancellations.add(reason);
                    return tasksEnded;
                }, leader, address -> {
                    JobManagerSide side = jobManagers.get(address.id());
                    if (side == null) {
                        throw new IllegalArgumentException("no route to " + address.rpcAddress());
                    }
                    return side;
                }, teMain, clock, HeartbeatSettings.DEFAULT, RegistrationBackoff.DEFAULT);
        if (confirmConnectionLoss) {
            connector.confirmLossOnConnectionFailure(probe, Duration.ofSeconds(1));
        }
        connector.start();
        settle();
    }

    @Test
    void aJobManagerWhosePortRefusesEveryReconnectAfterAResetIsLostAtTheDeadlineNotAfterTheHeartbeatTimeout() {
        JobManagerSide jm = jobManager(A, "prod");
        leader.setLeader(A);
        startConnector("prod", true);
        advance(Duration.ofMillis(1_500));
        assertThat(status().state()).isEqualTo(ConnectionStatus.State.REGISTERED);

        jm.link = "refused"; // its process is gone
        long start = clock.nanoTime();
        connector.connectionFailed(new io.sluice.rpc.remote.RpcAddress("jm-0", 6123),
                new java.io.IOException("Connection reset by peer"));
        while (cancellations.isEmpty() && clock.nanoTime() - start < Duration.ofSeconds(5).toNanos()) {
            settle();
            refuseProbes();
            advance(Duration.ofMillis(10));
        }

        long tookMillis = (clock.nanoTime() - start) / 1_000_000;
        assertThat(tookMillis).as("at the 1 s deadline, not after the 6 s heartbeat timeout").isBetween(1_000L, 1_100L);
        assertThat(cancellations).containsExactly("job manager lost: job manager jobmanager-0 at jm-0:6123 is gone: its"
                + " connection failed (Connection reset by peer) and jm-0:6123 refused 6 reconnect attempt(s) over 1 s"
                + " (its process is gone)");
        assertThat(status().state()).isEqualTo(ConnectionStatus.State.REGISTERING);

        jm.link = "up"; // a job manager started again there
        advance(Duration.ofSeconds(10));
        assertThat(status().state()).isEqualTo(ConnectionStatus.State.REGISTERED);
    }

    @Test
    void aRefusalAboutTheJobManagerOfAnEarlierRegistrationIsIgnored() {
        jobManager(A, "prod");
        JobManagerSide b = jobManager(B, "prod");
        leader.setLeader(A);
        startConnector("prod", true);
        connector.connectionFailed(new io.sluice.rpc.remote.RpcAddress("jm-0", 6123), null);
        settle();
        refuseProbes();
        advance(Duration.ofMillis(500));
        refuseProbes();

        leader.setLeader(B); // the connector leaves A and registers with B
        advance(Duration.ofMillis(100));
        assertThat(status().state()).isEqualTo(ConnectionStatus.State.REGISTERED);
        int before = cancellations.size();
        for (int i = 0; i < 20; i++) {
            refuseProbes();
            advance(Duration.ofMillis(100));
        }

        assertThat(cancellations).hasSize(before).noneMatch(c -> c.contains("refused"));
        assertThat(status().state()).isEqualTo(ConnectionStatus.State.REGISTERED);
        assertThat(b.pool.totalSlots()).isEqualTo(2);
    }

    @Test
    void registersWithTheLeaderAndStaysRegisteredWhileHeartbeatsFlow() {
        JobManagerSide jm = jobManager(A, "prod");
        leader.setLeader(A);
        startConnector("prod");

        assertThat(status().state()).isEqualTo(ConnectionStatus.State.REGISTERED);
        assertThat(jm.pool.totalSlots()).isEqualTo(2);

        advance(Duration.ofSeconds(60));

        assertThat(status().state()).isEqualTo(ConnectionStatus.State.REGISTERED);
        assertThat(jm.lost).isEmpty();
        assertThat(cancellations).isEmpty();
        assertThat(jm.registrationAttemptMillis).hasSize(1);
    }

    @Test
    void aSilentLinkIsDetectedOnBothSidesAfterTheTimeoutAndTheTaskExecutorRegistersAgainOnceItHeals() {
        JobManagerSide jm = jobManager(A, "prod");
        leader.setLeader(A);
        startConnector("prod");
        advance(Duration.ofMillis(2_500));

        jm.link = "silent";
        advance(Duration.ofMillis(5_000));
        assertThat(jm.lost).as("5 s without heartbeats").isEmpty();
        assertThat(cancellations).isEmpty();

        advance(Duration.ofMillis(2_000));
        assertThat(jm.lost).as("job manager side").containsExactly("task manager tm-1 lost: no heartbeat for 6 s");
        assertThat(jm.pool.totalSlots()).isZero();
        assertThat(cancellations).as("task executor side").containsExactly(
                "job manager lost: no heartbeat from job manager jobmanager-0 at jm-0:6123 for 6 s");
        assertThat(status().state()).isEqualTo(ConnectionStatus.State.REGISTERING);

        jm.link = "up";
        advance(Duration.ofSeconds(15)); // at most one registration timeout (6 s) plus a backoff

        assertThat(status().state()).isEqualTo(ConnectionStatus.State.REGISTERED);
        assertThat(jm.pool.totalSlots()).isEqualTo(2);
        assertThat(cancellations).hasSize(1);
    }

    @Test
    void anUnreachableJobManagerIsRetriedWithDoublingBackoffUpToTenSecondsForever() {
        JobManagerSide jm = jobManager(A, "prod");
        jm.link = "refused";
        leader.setLeader(A);
        long t0 = clock.currentTimeMillis();
        startConnector("prod");

        advance(Duration.ofSeconds(120));

        List<Long> offsets = new ArrayList<>();
        for (long t : jm.registrationAttemptMillis) {
            offsets.add(t - t0);
        }
        assertThat(offsets.subList(0, 10)).containsExactly(0L, 100L, 300L, 700L, 1_500L, 3_100L, 6_300L, 12_700L,
                22_700L, 32_700L);
        assertThat(offsets.get(offsets.size() - 1)).as("still trying after two minutes").isGreaterThan(110_000L);
        ConnectionStatus s = status();
        assertThat(s.state()).isEqualTo(ConnectionStatus.State.REGISTERING);
        assertThat(s.lastError()).isEqualTo("ConnectException: Connection refused");
        assertThat(s.attempt()).isEqualTo(offsets.size());

        jm.link = "up";
        advance(Duration.ofSeconds(10));
        assertThat(status().state()).isEqualTo(ConnectionStatus.State.REGISTERED);
        assertThat(jm.pool.totalSlots()).isEqualTo(2);
    }

    @Test
    void aWrongClusterIdIsRetriedSlowlyWithTheRejectionAsItsError() {
        JobManagerSide jm = jobManager(A, "prod");
        leader.setLeader(A);
        startConnector("staging");

        advance(Duration.ofMillis(9_900));
        assertThat(jm.registrationAttemptMillis).as("the next try waits the longest backoff").hasSize(1);
        advance(Duration.ofMillis(200));
        assertThat(jm.registrationAttemptMillis).hasSize(2);

        ConnectionStatus s = status();
        assertThat(s.state()).isEqualTo(ConnectionStatus.State.REGISTERING);
        assertThat(s.lastError()).startsWith("task manager tm-1 belongs to cluster 'staging', this job manager"
                + " (jobmanager-0) serves 'prod'");
        assertThat(jm.pool.totalSlots()).isZero();
    }

    @Test
    void aLeaderChangeCancelsTheTasksAndRegistersWithTheNewLeaderWithoutARestart() {
        JobManagerSide first = jobManager(A, "prod");
        JobManagerSide second = jobManager(B, "prod");
        leader.setLeader(A);
        startConnector("prod");
        UUID firstRegistration = status().registrationId();
        assertThat(first.pool.totalSlots()).isEqualTo(2);

        first.leading.set(false);
        leader.setLeader(B);
        settle();

        assertThat(cancellations).containsExactly("job manager lost: the dispatcher leader changed from " + A + " to " + B);
        ConnectionStatus s = status();
        assertThat(s.state()).isEqualTo(ConnectionStatus.State.REGISTERED);
        assertThat(s.leader()).isEqualTo(B);
        assertThat(s.registrationId()).isNotEqualTo(firstRegistration);
        assertThat(second.pool.totalSlots()).isEqualTo(2);

        advance(Duration.ofSeconds(2));
        assertThat(first.pool.totalSlots()).as("the old leader dropped it on losing leadership").isZero();
    }

    @Test
    void afterALossItRegistersAgainOnlyOnceItsCancelledTasksHaveEnded() {
        JobManagerSide first = jobManager(A, "prod");
        JobManagerSide second = jobManager(B, "prod");
        leader.setLeader(A);
        startConnector("prod");
        CompletableFuture<Void> ended = new CompletableFuture<>();
        tasksEnded = ended;

        leader.setLeader(B);
        advance(Duration.ofSeconds(2));
        assertThat(cancellations).hasSize(1);
        assertThat(second.registrationAttemptMillis).as("old tasks still run: not yet").isEmpty();

        ended.complete(null);
        settle();
        assertThat(second.registrationAttemptMillis).hasSize(1);
        assertThat(status().state()).isEqualTo(ConnectionStatus.State.REGISTERED);
    }

    @Test
    void aTaskThatIgnoresTheCancellationDelaysTheRegistrationByAtMostTheTimeout() {
        JobManagerSide first = jobManager(A, "prod");
        JobManagerSide second = jobManager(B, "prod");
        leader.setLeader(A);
        startConnector("prod");
        tasksEnded = new CompletableFuture<>(); // never ends

        leader.setLeader(B);
        advance(Duration.ofMillis(5_900));
        assertThat(second.registrationAttemptMillis).isEmpty();
        advance(Duration.ofMillis(200));

        assertThat(second.registrationAttemptMillis).hasSize(1);
        assertThat(status().state()).isEqualTo(ConnectionStatus.State.REGISTERED);
        assertThat(first.pool.totalSlots()).isZero();
    }

    @Test
    void anAnswerToAStaleAttemptIsIgnored() {
        JobManagerSide first = jobManager(A, "prod");
        JobManagerSide second = jobManager(B, "prod");
        first.link = "silent";
        leader.setLeader(A);
        startConnector("prod");
        leader.setLeader(B);
        settle();
        UUID current = status().registrationId();

        first.link = "up"; // the old leader would now answer, but the attempt to it is stale
        advance(Duration.ofSeconds(30));

        assertThat(status().registrationId()).isEqualTo(current);
        assertThat(first.registrationAttemptMillis).hasSize(1);
        assertThat(second.pool.totalSlots()).isEqualTo(2);
    }

    @Test
    void aJobManagerThatForgotTheRegistrationMakesTheTaskExecutorCancelItsTasksAndRegisterAgain() {
        JobManagerSide jm = jobManager(A, "prod");
        leader.setLeader(A);
        startConnector("prod");

        jm.leading.set(false); // leadership lost and regained: the registry drops every registration
        advance(Duration.ofSeconds(1));
        assertThat(jm.pool.totalSlots()).isZero();
        jm.leading.set(true);
        advance(Duration.ofSeconds(2));

        assertThat(cancellations).containsExactly("job manager lost: job manager jobmanager-0 at jm-0:6123 no longer"
                + " knows this task manager (it counted it as lost, restarted, or no longer leads)");
        assertThat(status().state()).isEqualTo(ConnectionStatus.State.REGISTERED);
        assertThat(jm.pool.totalSlots()).isEqualTo(2);
    }

    @Test
    void anAddressThatIsNotAJobManagerAddressIsRetriedWithTheParseError() {
        leader.setLeader("jobmanager-0");
        startConnector("prod");

        ConnectionStatus s = status();
        assertThat(s.state()).isEqualTo(ConnectionStatus.State.REGISTERING);
        assertThat(s.lastError()).startsWith("'jobmanager-0' is not a job manager address");

        JobManagerSide jm = jobManager(A, "prod");
        leader.setLeader(A);
        settle();
        assertThat(status().state()).isEqualTo(ConnectionStatus.State.REGISTERED);
        assertThat(jm.pool.totalSlots()).isEqualTo(2);
    }

    @Test
    void closingLeavesTheJobManagerAtOnce() {
        JobManagerSide jm = jobManager(A, "prod");
        leader.setLeader(A);
        startConnector("prod");

        connector.close();
        settle();

        assertThat(jm.lost).containsExactly("task manager tm-1 disconnected: the task manager shuts down");
        assertThat(status().state()).isEqualTo(ConnectionStatus.State.CLOSED);
        advance(Duration.ofSeconds(30));
        assertThat(jm.registrationAttemptMillis).hasSize(1);
    }

    @Test
    void aConsumerOfTheReasonStillWorksAndRegistersAgainAtOnce() {
        JobManagerSide first = jobManager(A, "prod");
        JobManagerSide second = jobManager(B, "prod");
        leader.setLeader(A);
        connector = new JobManagerConnector(new TaskExecutorRegistration("tm-1", "instance-1", 2, null, "prod"),
                taskExecutor, reason -> {
                    cancellations.add(reason);
                }, leader, address -> jobManagers.get(address.id()), teMain, clock, HeartbeatSettings.DEFAULT,
                RegistrationBackoff.DEFAULT);
        connector.start();
        settle();

        leader.setLeader(B);
        settle();

        assertThat(cancellations).hasSize(1);
        assertThat(second.pool.totalSlots()).isEqualTo(2);
        assertThat(first.registrationAttemptMillis).hasSize(1);
    }

    // ------------------------------------------------------------------ helpers

    /** Runs both main threads until neither has queued work. */
    private void settle() {
        threads.settle();
    }

    private void advance(Duration by) {
        threads.advance(by);
    }

    private ConnectionStatus status() {
        return threads.status(connector);
    }
}
