package io.sluice.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sluice.api.StreamExecutionEnvironment;
import io.sluice.api.source.SequenceSource;
import io.sluice.checkpoint.CheckpointStorageRegistry;
import io.sluice.cluster.SlotPool;
import io.sluice.cluster.membership.ConnectionStatus;
import io.sluice.cluster.membership.HeartbeatSettings;
import io.sluice.cluster.membership.JobManagerAddress;
import io.sluice.cluster.membership.JobManagerConnector;
import io.sluice.cluster.membership.RegistrationBackoff;
import io.sluice.cluster.membership.TaskExecutorRegistration;
import io.sluice.cluster.membership.TaskExecutorRegistry;
import io.sluice.dispatcher.Dispatcher;
import io.sluice.examples.InjectedFailures;
import io.sluice.examples.KeyedCountingJob;
import io.sluice.graph.JobId;
import io.sluice.ha.memory.InMemoryHaServices;
import io.sluice.jobmaster.FailureEvent;
import io.sluice.jobmaster.JobDetails;
import io.sluice.jobmaster.JobManagerServices;
import io.sluice.jobmaster.JobResult;
import io.sluice.jobmaster.JobStatus;
import io.sluice.jobmaster.RecoveryBackoff;
import io.sluice.network.LocalShuffleService;
import io.sluice.rpc.DedicatedMainThreadExecutor;
import io.sluice.taskexecutor.TaskExecutor;
import io.sluice.util.SystemClock;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Task executors that come and go, in one JVM with local gateways and the default heartbeat and
 * restart settings: a job manager (Dispatcher on a dynamic slot pool, task-executor registry) and
 * task executors that register through the registry, found by leader retrieval from the job
 * manager's address. The keyed counting job waits for its slots, runs, loses a task executor
 * (killed: nothing crosses any more, heartbeats stop), fails over after the heartbeat timeout with
 * "task manager tm-1 lost: no heartbeat for 6 s", waits saying for what, runs again once a new task
 * executor registers, and finishes with the exact counts.
 */
class TaskManagerLossITCase {
    private static final String CLUSTER_ID = "it-cluster";
    private static final int KEYS = 16;
    private static final double RATE = 10_000;
    private static final long RECORDS = 120_000;

    @TempDir
    Path dir;

    private final ExecutorService io = Executors.newCachedThreadPool();
    private final InMemoryHaServices ha = new InMemoryHaServices();
    private final LocalShuffleService shuffle = new LocalShuffleService();
    private final CheckpointStorageRegistry storages = new CheckpointStorageRegistry(new SimpleMeterRegistry());
    private final SlotPool pool = SlotPool.dynamic();
    private final List<AutoCloseable> toClose = new ArrayList<>();
    private final List<DedicatedMainThreadExecutor> threads = new ArrayList<>();
    private TaskExecutorRegistry registry;
    private Dispatcher dispatcher;

    /** A task executor and its connector. */
    private record Member(KillableTaskExecutor gateway, JobManagerConnector connector) {
    }

    @Test
    @Timeout(value = 3, unit = TimeUnit.MINUTES)
    void aLostTaskExecutorFailsTheJobOverWhichWaitsForSlotsAndFinishesExactlyOnANewOne() throws Exception {
        startJobManager();
        MaxCountPerKeySink sink = new MaxCountPerKeySink();
        try {
            StreamExecutionEnvironment env = StreamExecutionEnvironment.create().setParallelism(4)
                    .enableCheckpointing(Duration.ofMillis(500)).setCheckpointDir(dir.resolve("checkpoints").toString());
            KeyedCountingJob.build(env, SequenceSource.bounded(0, RECORDS - 1).withRate(RATE), KEYS,
                    InjectedFailures.none(), sink);
            JobId id = dispatcher.submitJob(env.buildJobGraph("task manager loss")).get(30, TimeUnit.SECONDS);

            await("waiting for slots before any task executor registered").atMost(Duration.ofSeconds(30))
                    .until(() -> phase(details(id)), "waiting for 4 slots; 0 free on 0 task managers"::equals);

            Member tm1 = startTaskExecutor("tm-1");
            startTaskExecutor("tm-2");
            await("running on tm-1 and tm-2").atMost(Duration.ofSeconds(30))
                    .until(() -> details(id).status() == JobStatus.RUNNING);
            await("a checkpoint").atMost(Duration.ofSeconds(30)).until(() -> details(id).checkpoints().completed() >= 2);

            long killedAt = System.nanoTime();
            tm1.gateway().kill(); // as if its process died: nothing crosses any more, no heartbeats
            tm1.connector().close();

            await("the job fails over and waits for slots").atMost(Duration.ofSeconds(30))
                    .until(() -> phase(details(id)), "waiting for 4 slots; 2 free on 1 task manager"::equals);
            long detectedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killedAt);
            System.out.printf("task executor loss detected and the job waiting for slots %d ms after the kill%n",
                    detectedMillis);
            JobDetails waiting = details(id);
            assertThat(waiting.status()).isEqualTo(JobStatus.RESTARTING);
            assertThat(detectedMillis).as("after the 6 s heartbeat timeout, not before").isGreaterThanOrEqualTo(5_900);
            assertThat(waiting.recentFailures()).extracting(FailureEvent::cause)
                    .anySatisfy(c -> assertThat(c).endsWith("task manager tm-1 lost: no heartbeat for 6 s"));
            assertThat(waiting.recentFailures()).as("the loss is the only failure").hasSize(1);
            tm1.gateway().stopTasks().get(10, TimeUnit.SECONDS); // the dead process's threads
            int restartsWhileWaiting = waiting.restarts();
            await().pollDelay(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(4)).until(() -> true);
            assertThat(details(id).restarts()).as("waiting for slots is no crash loop").isEqualTo(restartsWhileWaiting);
            assertThat(details(id).status()).isEqualTo(JobStatus.RESTARTING);

            startTaskExecutor("tm-3");

            JobResult result = dispatcher.requestJobResult(id).get(120, TimeUnit.SECONDS);
            assertThat(result.status()).as(String.valueOf(result.failureStackTrace())).isEqualTo(JobStatus.FINISHED);
            assertThat(sink.maxPerKey()).as("exact counts").isEqualTo(KeyedCountingJob.expectedCounts(RECORDS, KEYS));
            assertThat(pool.taskExecutorIds()).containsExactly("tm-2", "tm-3");
        } finally {
            sink.release();
        }
    }

    private void startJobManager() {
        String address = new JobManagerAddress("jobmanager-0", "127.0.0.1", 6123, null).encode();
        DedicatedMainThreadExecutor main = thread("jobmanager-0");
        JobManagerServices services = new JobManagerServices(ha, storages, pool,
                (jobId, deployment) -> shuffle.releaseAttempt(jobId, deployment,
                        new IllegalStateException("deployment " + deployment + " of job " + jobId + " ended")),
                io, SystemClock.INSTANCE, new Random(1), RecoveryBackoff.DEFAULT, address);
        dispatcher = new Dispatcher(services, main);
        dispatcher.start();
        registry = new TaskExecutorRegistry("jobmanager-0", CLUSTER_ID, pool, dispatcher::isLeader,
                ha.dispatcherLeaderRetrieval()::currentLeader, thread("registry"), SystemClock.INSTANCE,
                HeartbeatSettings.DEFAULT);
        registry.start();
    }

    private Member startTaskExecutor(String id) {
        DedicatedMainThreadExecutor main = thread(id);
        TaskExecutor te = new TaskExecutor(id, 2, main, io, shuffle, storages);
        KillableTaskExecutor gateway = new KillableTaskExecutor(te);
        JobManagerConnector connector = new JobManagerConnector(
                new TaskExecutorRegistration(id, UUID.randomUUID().toString(), 2, null, CLUSTER_ID), gateway,
                te::cancelAllTasks, ha.dispatcherLeaderRetrieval(), address -> {
                    assertThat(address.id()).isEqualTo("jobmanager-0");
                    return gateway.link(registry);
                }, main, SystemClock.INSTANCE, HeartbeatSettings.DEFAULT, RegistrationBackoff.DEFAULT);
        connector.start();
        toClose.add(() -> connector.close().get(10, TimeUnit.SECONDS));
        toClose.add(() -> te.cancelAll().get(10, TimeUnit.SECONDS));
        await(id + " registered").atMost(Duration.ofSeconds(30))
                .until(() -> connector.status().get(5, TimeUnit.SECONDS).state() == ConnectionStatus.State.REGISTERED);
        return new Member(gateway, connector);
    }

    private DedicatedMainThreadExecutor thread(String name) {
        DedicatedMainThreadExecutor t = new DedicatedMainThreadExecutor(name);
        threads.add(t);
        return t;
    }

    private JobDetails details(JobId id) throws Exception {
        return dispatcher.requestJobDetails(id).get(10, TimeUnit.SECONDS);
    }

    private static String phase(JobDetails d) {
        return d.recovery() == null ? null : d.recovery().phase();
    }

    @AfterEach
    void tearDown() throws Exception {
        if (dispatcher != null) {
            dispatcher.close().get(30, TimeUnit.SECONDS);
        }
        if (registry != null) {
            registry.close().get(10, TimeUnit.SECONDS);
        }
        for (AutoCloseable c : toClose) {
            c.close();
        }
        threads.forEach(DedicatedMainThreadExecutor::close);
        io.shutdownNow();
        ha.close();
    }
}
