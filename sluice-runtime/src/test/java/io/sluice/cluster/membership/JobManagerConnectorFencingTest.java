package io.sluice.cluster.membership;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.slots.SlotPool;
import io.sluice.rpc.remote.FencingTokenMismatchException;
import io.sluice.protocol.TaskExecutorGateway;
import io.sluice.testutil.ManuallyTriggeredMainThreadExecutor;
import io.sluice.testutil.TestingTaskExecutorGateway;
import io.sluice.util.ManualClock;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The leader session in task-executor membership, on manually triggered main threads over one
 * {@link ManualClock}: the connector asks the job manager for its session, registers and sends
 * heartbeats under it, and offers it as the task executor's fencing token; the job manager's links
 * refuse calls for another session the way a fenced RPC endpoint does.
 */
class JobManagerConnectorFencingTest {
    private static final String A = new JobManagerAddress("jobmanager-0", "jm-0", 6123, null).encode();
    private static final String B = new JobManagerAddress("jobmanager-1", "jm-1", 6123, null).encode();

    private final MembershipThreads threads = new MembershipThreads();
    private final ManualClock clock = threads.clock;
    private final ManuallyTriggeredMainThreadExecutor teMain = threads.taskExecutor;
    private final ManuallyTriggeredMainThreadExecutor jmMain = threads.jobManager;
    private final TestingLeaderRetrieval leader = new TestingLeaderRetrieval();
    private final List<String> cancellations = new CopyOnWriteArrayList<>();
    private final TaskExecutorGateway taskExecutor = new TestingTaskExecutorGateway("tm-1", 2);
    private final JobManagerSide a = new JobManagerSide(A);
    private final JobManagerSide b = new JobManagerSide(B);
    private JobManagerConnector connector;

    /** A job manager whose dispatcher leader session the test sets ({@code null}: a standby). */
    private final class JobManagerSide {
        final SlotPool pool = SlotPool.dynamic();
        final AtomicReference<UUID> session = new AtomicReference<>();
        final TaskExecutorRegistry registry;
        /** The session of each call that reached the registry through a link (as the fenced endpoint let it through). */
        final List<String> accepted = new CopyOnWriteArrayList<>();

        /** @param id its contender id, as in a job manager process */
        JobManagerSide(String id) {
            registry = new TaskExecutorRegistry(id, "prod", pool, () -> session.get() != null, session::get,
                    leader::currentLeader, jmMain, clock, HeartbeatSettings.DEFAULT);
            registry.start();
        }

        /** What an RPC proxy speaking {@code token} reaches: the registry behind the endpoint's fencing check. */
        TaskExecutorRegistryGateway link(UUID token) {
            return new TaskExecutorRegistryGateway() {
                @Override
                public CompletableFuture<JobManagerSession> leaderSession() {
                    return registry.leaderSession(); // unfenced
                }

                @Override
                public CompletableFuture<RegistrationResponse> registerTaskExecutor(TaskExecutorRegistration r,
                                                                                    TaskExecutorGateway te) {
                    return fenced("registerTaskExecutor", () -> registry.registerTaskExecutor(r, te));
                }

                @Override
                public CompletableFuture<HeartbeatResponse> heartbeatFromTaskExecutor(String id, UUID registrationId) {
                    return fenced("heartbeatFromTaskExecutor", () -> registry.heartbeatFromTaskExecutor(id, registrationId));
                }

                @Override
                public void disconnectTaskExecutor(String id, UUID registrationId, String reason) {
                    fenced("disconnectTaskExecutor", () -> {
                        registry.disconnectTaskExecutor(id, registrationId, reason);
                        return CompletableFuture.completedFuture(null);
                    });
                }

                private <T> CompletableFuture<T> fenced(String method, java.util.function.Supplier<CompletableFuture<T>> call) {
                    UUID current = session.get();
                    if (current == null || !Objects.equals(current, token)) {
                        return CompletableFuture.failedFuture(new FencingTokenMismatchException("Endpoint 'registry' refuses "
                                + method + " made for leader session " + token + ", current " + current, token, current));
                    }
                    accepted.add(method + "@" + token);
                    return call.get();
                }
            };
        }
    }

    private void startConnector() {
        connector = new JobManagerConnector(new TaskExecutorRegistration("tm-1", "instance-1", 2, null, "prod"),
                taskExecutor, reason -> {
                    cancellations.add(reason);
                    return CompletableFuture.completedFuture(null);
                }, leader, (address, token) -> (address.id().equals("jobmanager-0") ? a : b).link(token),
                teMain, clock, HeartbeatSettings.DEFAULT, RegistrationBackoff.DEFAULT);
        connector.start();
        settle();
    }

    @Test
    void registersUnderTheSessionTheLeaderNamesAndTakesItAsTheTaskExecutorsToken() {
        UUID s1 = UUID.randomUUID();
        a.session.set(s1);
        leader.setLeader(A);
        startConnector();

        assertThat(status().state()).isEqualTo(ConnectionStatus.State.REGISTERED);
        assertThat(connector.leaderSession()).isEqualTo(s1);
        advance(Duration.ofSeconds(3));
        assertThat(a.accepted).first().isEqualTo("registerTaskExecutor@" + s1);
        assertThat(a.accepted).contains("heartbeatFromTaskExecutor@" + s1).allMatch(c -> c.endsWith("@" + s1));
        assertThat(a.pool.totalSlots()).isEqualTo(2);
    }

    @Test
    void aStandbyIsNotRegisteredWithAndTheTaskExecutorHasNoTokenUntilItLeads() {
        leader.setLeader(A); // leader retrieval already names A, but A has not taken over yet
        startConnector();

        ConnectionStatus s = status();
        assertThat(s.state()).isEqualTo(ConnectionStatus.State.REGISTERING);
        assertThat(s.lastError()).contains("jobmanager-0 does not lead yet");
        assertThat(connector.leaderSession()).isNull();
        assertThat(a.accepted).isEmpty();

        UUID s1 = UUID.randomUUID();
        a.session.set(s1);
        advance(Duration.ofSeconds(2)); // the next attempt after the backoff
        assertThat(status().state()).isEqualTo(ConnectionStatus.State.REGISTERED);
        assertThat(connector.leaderSession()).isEqualTo(s1);
    }

    @Test
    void aHeartbeatRefusedForItsSessionLosesTheJobManagerAtOnceAndRegistersUnderTheNewSession() {
        UUID s1 = UUID.randomUUID();
        a.session.set(s1);
        leader.setLeader(A);
        startConnector();
        assertThat(status().state()).isEqualTo(ConnectionStatus.State.REGISTERED);

        // A lost and regained its leadership between two reads of leader retrieval: same contender, new session.
        UUID s2 = UUID.randomUUID();
        a.session.set(s2);
        advance(Duration.ofMillis(1_500)); // one heartbeat, far less than the heartbeat timeout

        assertThat(cancellations).as("the tasks of the old session are cancelled at once").hasSize(1);
        assertThat(cancellations.get(0)).contains("refused the heartbeat").contains(s1.toString());
        assertThat(status().state()).isEqualTo(ConnectionStatus.State.REGISTERED);
        assertThat(connector.leaderSession()).isEqualTo(s2);
        assertThat(a.accepted).contains("registerTaskExecutor@" + s2);
    }

    @Test
    void aNewLeaderGivesTheTaskExecutorItsSessionAndTheOldOneIsNoLongerItsToken() {
        UUID s1 = UUID.randomUUID();
        a.session.set(s1);
        leader.setLeader(A);
        startConnector();
        assertThat(connector.leaderSession()).isEqualTo(s1);

        UUID s3 = UUID.randomUUID();
        b.session.set(s3);
        leader.setLeader(B); // A's session still "leads" as far as A knows (a paused process): it is no longer the token
        settle();
        assertThat(status().state()).isEqualTo(ConnectionStatus.State.REGISTERED);
        assertThat(connector.leaderSession()).isEqualTo(s3);
        assertThat(b.accepted).first().isEqualTo("registerTaskExecutor@" + s3);

        leader.setLeader(null);
        settle();
        assertThat(connector.leaderSession()).as("no leader: the task executor accepts no job manager").isNull();
    }

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
