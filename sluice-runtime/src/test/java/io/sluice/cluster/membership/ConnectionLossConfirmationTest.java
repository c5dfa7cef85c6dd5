package io.sluice.cluster.membership;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.graph.JobId;
import io.sluice.rpc.remote.RpcAddress;
import io.sluice.rpc.remote.RpcService;
import io.sluice.slots.SlotPool;
import io.sluice.testutil.ManuallyTriggeredMainThreadExecutor;
import io.sluice.testutil.TestingTaskExecutorGateway;
import io.sluice.protocol.TaskExecutorGateway;
import io.sluice.util.ManualClock;
import java.io.IOException;
import java.net.ConnectException;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * The job manager confirming a task executor's loss when its connection is reset: reconnect attempts
 * refused until the deadline declare it lost at once; a reconnect that opens, or one that only times
 * out, leaves it to the heartbeat; a late answer about a replaced registration is ignored.
 */
class ConnectionLossConfirmationTest {
    private static final Duration DEADLINE = Duration.ofSeconds(1);
    private static final Duration STEP = Duration.ofMillis(50);

    private final ManualClock clock = new ManualClock();
    private final ManuallyTriggeredMainThreadExecutor mainThread = new ManuallyTriggeredMainThreadExecutor("registry", clock);
    private final SlotPool pool = SlotPool.dynamic();
    private final List<String> lost = new CopyOnWriteArrayList<>();
    private final FakeProbe probe = new FakeProbe();
    private final TaskExecutorRegistry registry = new TaskExecutorRegistry("jobmanager-0", "prod", pool, () -> true,
            Optional::empty, mainThread, clock, HeartbeatSettings.DEFAULT);
    private final RpcAddress tm1 = new RpcAddress("tm-1.example", 6122);

    ConnectionLossConfirmationTest() {
        pool.addListener(new SlotPool.Listener() {
            @Override
            public void taskExecutorLost(String taskExecutorId, Set<JobId> jobs, String reason) {
                lost.add(reason);
            }

            @Override
            public void slotsAdded() {
            }
        });
        registry.confirmLossOnConnectionFailure(probe, DEADLINE);
        registry.start();
        mainThread.triggerAll();
    }

    @Test
    void aResetConnectionWhosePortRefusesEveryReconnectIsDeclaredLostAtTheDeadlineNotAtTheHeartbeatTimeout() {
        UUID registration = register("tm-1", "i-1");
        assertThat(probe.attempts()).as("registering opens a watched connection").isEqualTo(1);
        probe.answerAll(null);
        long start = clock.nanoTime();

        registry.connectionFailed(tm1, new IOException("Connection reset by peer"));
        while (lost.isEmpty() && clock.nanoTime() - start < Duration.ofSeconds(5).toNanos()) {
            mainThread.triggerAll();
            probe.answerAll(refused());
            mainThread.triggerAll();
            mainThread.advanceTime(STEP);
        }

        long tookMillis = (clock.nanoTime() - start) / 1_000_000;
        assertThat(tookMillis).as("declared at the deadline (1 s), long before heartbeat.timeout (6 s)").isBetween(1_000L, 1_100L);
        assertThat(lost).hasSize(1);
        assertThat(lost.get(0)).startsWith("task manager tm-1 lost: its connection failed (Connection reset by peer) and "
                + tm1 + " refused 6 reconnect attempt(s) over 1 s");
        assertThat(pool.totalSlots()).isZero();
        assertThat(heartbeat("tm-1", registration)).isEqualTo(HeartbeatResponse.UNKNOWN_REGISTRATION);
    }

    @Test
    void aReconnectThatOpensEndsTheCheckAndTheTaskManagerStaysWhileItSendsHeartbeats() {
        UUID registration = register("tm-1", "i-1");
        probe.answerAll(null);

        registry.connectionFailed(tm1, null);
        mainThread.triggerAll();
        probe.answerAll(refused());
        mainThread.triggerAll();
        mainThread.advanceTime(Duration.ofMillis(200));
        assertThat(probe.pending()).as("the second attempt").hasSize(1);
        probe.answerAll(null);
        mainThread.triggerAll();

        for (int i = 0; i < 10; i++) {
            mainThread.advanceTime(Duration.ofSeconds(1));
            assertThat(heartbeat("tm-1", registration)).isEqualTo(HeartbeatResponse.ACCEPTED);
        }
        assertThat(probe.pending()).as("no more attempts after one opened").isEmpty();
        assertThat(probe.attempts()).isEqualTo(3);
        assertThat(lost).isEmpty();
        assertThat(pool.totalSlots()).isEqualTo(2);
    }

    @Test
    void aReconnectThatTimesOutIsSilenceNotDeathSoOnlyTheHeartbeatTimeoutDeclaresTheLoss() {
        register("tm-1", "i-1");
        probe.answerAll(null);

        registry.connectionFailed(tm1, new IOException("Connection reset by peer"));
        mainThread.triggerAll();
        probe.answerAll(new io.netty.channel.ConnectTimeoutException("connection timed out: tm-1.example/10.0.0.7:6122"));
        mainThread.triggerAll();
        mainThread.advanceTime(Duration.ofMillis(5_900));
        assertThat(probe.attempts()).as("no retry after a timeout").isEqualTo(2);
        assertThat(lost).isEmpty();

        mainThread.advanceTime(Duration.ofMillis(1_100));
        assertThat(lost).containsExactly("task manager tm-1 lost: no heartbeat for 6 s");
    }

    @Test
    void aRefusalThatArrivesAfterTheTaskManagerRegisteredAgainIsIgnored() {
        register("tm-1", "i-1");
        probe.answerAll(null);
        registry.connectionFailed(tm1, new IOException("Connection reset by peer"));
        for (int i = 0; i < 4; i++) {
            mainThread.triggerAll();
            probe.answerAll(refused());
            mainThread.triggerAll();
            mainThread.advanceTime(Duration.ofMillis(200));
        }
        mainThread.advanceTime(Duration.ofMillis(150));
        assertThat(probe.pending()).as("an attempt of the old registration in flight").hasSize(1);
        CompletableFuture<Void> oldAttempt = probe.pending().get(0);

        UUID again = register("tm-1", "i-2"); // its process restarted meanwhile
        List<CompletableFuture<Void>> watch = new ArrayList<>(probe.pending());
        watch.remove(oldAttempt);
        oldAttempt.completeExceptionally(refused());
        mainThread.advanceTime(Duration.ofSeconds(2));
        watch.forEach(f -> f.complete(null));
        mainThread.advanceTime(Duration.ofMillis(500));

        assertThat(lost).noneMatch(reason -> reason.contains("refused"));
        assertThat(heartbeat("tm-1", again)).isEqualTo(HeartbeatResponse.ACCEPTED);
        assertThat(pool.totalSlots()).isEqualTo(2);
    }

    @Test
    void aRealConnectionToAClosedPortIsRefusedAndReportedToTheListener() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        List<RpcAddress> failures = new CopyOnWriteArrayList<>();
        try (RpcService rpc = RpcService.builder().bind("127.0.0.1", 0).start()) {
            rpc.onConnectionFailure((address, cause) -> failures.add(address));
            RpcAddress closed = new RpcAddress("127.0.0.1", port);
            CompletableFuture<Void> connect = rpc.connect(closed);
            Throwable error = connect.handle((ok, e) -> e).get(10, TimeUnit.SECONDS);

            assertThat(error).isNotNull();
            assertThat(ConnectionLossConfirmer.isRefused(error)).as(String.valueOf(error)).isTrue();
            Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> failures.contains(closed));
        }
    }

    // ------------------------------------------------------------------

    private static ConnectException refused() {
        return new ConnectException("Connection refused: tm-1.example/10.0.0.7:6122");
    }

    private UUID register(String id, String instance) {
        CompletableFuture<RegistrationResponse> r = registry.registerTaskExecutor(
                new TaskExecutorRegistration(id, instance, 2, null, "prod"), new TestingTaskExecutorGateway(id, 2));
        mainThread.triggerAll();
        assertThat(r.join().outcome()).isEqualTo(RegistrationResponse.Outcome.ACCEPTED);
        return r.join().registrationId();
    }

    private HeartbeatResponse heartbeat(String id, UUID registrationId) {
        CompletableFuture<HeartbeatResponse> r = registry.heartbeatFromTaskExecutor(id, registrationId);
        mainThread.triggerAll();
        return r.join();
    }

    /** Maps every gateway to {@code <id>.example:6122}; connect attempts stay pending until answered. */
    private static final class FakeProbe implements ConnectionLossConfirmer.Probe {
        private final List<CompletableFuture<Void>> pending = new ArrayList<>();
        private int attempts;

        @Override
        public Optional<RpcAddress> addressOf(Object gateway) {
            return Optional.of(new RpcAddress(((TaskExecutorGateway) gateway).id() + ".example", 6122));
        }

        @Override
        public synchronized CompletableFuture<Void> connect(RpcAddress address) {
            attempts++;
            CompletableFuture<Void> f = new CompletableFuture<>();
            pending.add(f);
            return f;
        }

        synchronized List<CompletableFuture<Void>> pending() {
            pending.removeIf(CompletableFuture::isDone);
            return new ArrayList<>(pending);
        }

        synchronized int attempts() {
            return attempts;
        }

        void answerAll(Throwable error) {
            for (CompletableFuture<Void> f : pending()) {
                if (error == null) {
                    f.complete(null);
                } else {
                    f.completeExceptionally(error);
                }
            }
        }
    }
}
