package io.sluice.ha.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sluice.api.tuple.Tuple2;
import io.sluice.api.sink.CollectingSink;
import io.sluice.cluster.membership.HeartbeatResponse;
import io.sluice.cluster.membership.TaskExecutorRegistration;
import io.sluice.cluster.membership.TaskExecutorRegistryGateway;
import io.sluice.cluster.process.JobManagerProcess;
import io.sluice.cluster.process.TaskManagerProcess;
import io.sluice.config.Configuration;
import io.sluice.config.JobManagerOptions;
import io.sluice.protocol.DispatcherGateway;
import io.sluice.examples.KeyedCountingJob;
import io.sluice.graph.JobGraph;
import io.sluice.graph.JobId;
import io.sluice.job.JobResult;
import io.sluice.job.JobStatus;
import io.sluice.rpc.remote.FencingTokenMismatchException;
import io.sluice.rpc.remote.RpcAddress;
import io.sluice.rpc.remote.RpcService;
import io.sluice.job.ExecutionAttemptId;
import io.sluice.protocol.TaskExecutorGateway;
import io.sluice.testutil.ReverseOrderCloser;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.curator.test.KillSession;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Stale leaders are fenced across processes: two {@link JobManagerProcess}es and two
 * {@link TaskManagerProcess}es in one JVM on ZooKeeper HA, talking only over RPC. The leader's
 * ZooKeeper session expires (as for a process paused past its session timeout) while all its objects
 * stay alive: the standby takes over, the task managers register with it under its leader session,
 * and the job runs on there to exact counts. Calls through the deposed leader's proxies, which speak
 * for its old session, are refused by the task executors and by the registries with the fencing
 * error, naming both sessions.
 */
@Timeout(180)
class ZooKeeperLeaderFencingITCase {
    @RegisterExtension
    static final ZooKeeperServerExtension zooKeeper = new ZooKeeperServerExtension();

    @TempDir
    Path dir;

    private final ReverseOrderCloser started = new ReverseOrderCloser();

    @AfterEach
    void stop() {
        started.close();
    }

    private Configuration config() {
        return zooKeeper.config("fencing")
                .set(ZooKeeperHaOptions.STORAGE_DIR, dir.resolve("ha-storage").toUri().toString())
                .set(JobManagerOptions.RPC_PORT, 0);
    }

    private <T extends AutoCloseable> T started(T process) {
        return started.add(process);
    }

    private static Throwable failure(CompletableFuture<?> future) throws Exception {
        try {
            future.get(20, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            return e.getCause();
        }
        throw new AssertionError("expected the call to be refused, but it was answered");
    }

    @Test
    void aDeposedLeadersProxiesAreRefusedWhileTheNewLeaderRunsTheJobToExactCounts() throws Exception {
        JobManagerProcess first = started(JobManagerProcess.start(config(), null, new SimpleMeterRegistry()));
        await().atMost(Duration.ofSeconds(30)).until(() -> first.dispatcher().isLeader());
        JobManagerProcess second = started(JobManagerProcess.start(config(), null, new SimpleMeterRegistry()));
        TaskManagerProcess tm1 = started(TaskManagerProcess.start(config(), 1, new SimpleMeterRegistry()));
        TaskManagerProcess tm2 = started(TaskManagerProcess.start(config(), 1, new SimpleMeterRegistry()));
        await().atMost(Duration.ofSeconds(30)).until(() -> first.slotPool().totalSlots() == 2);
        UUID oldSession = first.dispatcher().currentLeaderSession();
        assertThat(oldSession).isNotNull();
        assertThat(tm1.connector().leaderSession()).isEqualTo(oldSession);

        long records = 40_000;
        CollectingSink<Tuple2<Long, Long>> sink = CollectingSink.create();
        RpcService caller = started(RpcService.builder().bind("127.0.0.1", 0).start());
        try {
            JobGraph graph = ZkTestSupport.countingJob(dir, records, 8_000, sink, 3);
            JobId id = first.dispatcher().submitJob(graph).get(30, TimeUnit.SECONDS);
            await().atMost(Duration.ofSeconds(30)).until(() ->
                    first.dispatcher().requestJobDetails(id).get(5, TimeUnit.SECONDS).checkpoints().completed() >= 2);
            // What the leader's job masters deploy, cancel and trigger checkpoints through.
            List<TaskExecutorGateway> staleTaskExecutors = first.slotPool().taskExecutors();
            assertThat(staleTaskExecutors).hasSize(2)
                    .allSatisfy(te -> assertThat(RpcService.fencingTokenOf(te)).isEqualTo(oldSession));

            // The leader's ZooKeeper session expires; the process and its objects stay alive.
            KillSession.kill(((ZooKeeperHaServices) first.haServices()).contenderClient(first.contenderId())
                    .getZookeeperClient().getZooKeeper());
            await().atMost(Duration.ofSeconds(30)).until(() -> second.dispatcher().isLeader());
            UUID newSession = second.dispatcher().currentLeaderSession();
            await().atMost(Duration.ofSeconds(30)).until(() -> second.slotPool().totalSlots() == 2
                    && newSession.equals(tm1.connector().leaderSession()) && newSession.equals(tm2.connector().leaderSession()));
            assertThat(newSession).isNotEqualTo(oldSession);

            // (1) the deposed leader's job masters reach the task executors no more
            for (TaskExecutorGateway stale : staleTaskExecutors) {
                Throwable cancel = failure(stale.cancelTask(new ExecutionAttemptId(id, 0, 0, 1)));
                assertThat(cancel).isInstanceOf(FencingTokenMismatchException.class)
                        .hasMessageContaining("'taskexecutor'").hasMessageContaining(oldSession.toString())
                        .hasMessageContaining(newSession.toString()).hasMessageContaining("no longer leader");
                assertThat(failure(stale.requestTaskMetrics(id))).isInstanceOf(FencingTokenMismatchException.class);
            }
            // (2) a task manager still reporting under the old session is refused by both registries
            RpcAddress firstAt = new RpcAddress("127.0.0.1", first.address().rpcPort());
            RpcAddress secondAt = new RpcAddress("127.0.0.1", second.address().rpcPort());
            TaskExecutorRegistryGateway toDeposed = caller.remoteGateway(firstAt, TaskExecutorRegistryGateway.ENDPOINT,
                    TaskExecutorRegistryGateway.class, oldSession, Map.of());
            assertThat(failure(toDeposed.heartbeatFromTaskExecutor(tm1.id(), UUID.randomUUID())))
                    .isInstanceOf(FencingTokenMismatchException.class).hasMessageContaining("does not lead")
                    .hasMessageContaining("the leader is " + second.contenderId());
            TaskExecutorRegistryGateway toNewLeader = caller.remoteGateway(secondAt, TaskExecutorRegistryGateway.ENDPOINT,
                    TaskExecutorRegistryGateway.class, oldSession, Map.of());
            assertThat(failure(toNewLeader.registerTaskExecutor(
                    new TaskExecutorRegistration("tm-stale", "instance", 1, null, "fencing"), null)))
                    .isInstanceOf(FencingTokenMismatchException.class)
                    .hasMessageContaining(oldSession.toString()).hasMessageContaining(newSession.toString());
            TaskExecutorRegistryGateway current = RpcService.withFencingToken(toNewLeader, newSession);
            assertThat(current.heartbeatFromTaskExecutor(tm1.id(), UUID.randomUUID()).get(20, TimeUnit.SECONDS))
                    .as("the current session is answered").isEqualTo(HeartbeatResponse.UNKNOWN_REGISTRATION);
            // (3) the deposed leader, a standby now, forwards to the new leader under the new session
            DispatcherGateway forwarded = first.leaderDispatcher().orElseThrow();
            assertThat(forwarded.listJobs().get(20, TimeUnit.SECONDS)).extracting(j -> j.jobId()).contains(id);

            JobResult result = second.dispatcher().requestJobResult(id).get(120, TimeUnit.SECONDS);
            assertThat(result.status()).as(String.valueOf(result.failureMessage())).isEqualTo(JobStatus.FINISHED);
            assertThat(CollectingSink.lastValuePerKey(sink.results(), Tuple2::f0, Tuple2::f1))
                    .isEqualTo(KeyedCountingJob.expectedCounts(records, ZkTestSupport.KEYS));
        } finally {
            sink.release();
        }
    }
}
