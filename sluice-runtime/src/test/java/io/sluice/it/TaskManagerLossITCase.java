package io.sluice.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.sluice.api.StreamExecutionEnvironment;
import io.sluice.api.source.SequenceSource;
import io.sluice.dispatcher.Dispatcher;
import io.sluice.examples.InjectedFailures;
import io.sluice.examples.KeyedCountingJob;
import io.sluice.graph.JobId;
import io.sluice.protocol.JobDetails;
import io.sluice.job.JobResult;
import io.sluice.job.JobStatus;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Task executors that come and go, in one JVM with local gateways ({@link RegisteringCluster}) and the
 * default heartbeat and restart settings.
 *
 * <ul>
 *   <li>The keyed counting job waits for its slots, runs, loses a task executor (killed: nothing
 *       crosses any more, heartbeats stop), fails over after the heartbeat timeout with "task manager
 *       tm-1 lost: no heartbeat for 6 s", waits saying for what, runs again once a new task executor
 *       registers, and finishes with the exact counts.</li>
 *   <li>The leading job manager stops: the task executors follow leader retrieval to the standby,
 *       cancel the old tasks and register there without a restart, and the job, recovered by the new
 *       leader, finishes with the exact counts.</li>
 * </ul>
 */
class TaskManagerLossITCase {
    private static final int KEYS = 16;
    private static final double RATE = 10_000;
    /** 6 s of input: the job still runs when a task executor is killed or the leader stops (after two checkpoints). */
    private static final long RECORDS = 60_000;

    @TempDir
    Path dir;

    @Test
    @Timeout(value = 3, unit = TimeUnit.MINUTES)
    void aLostTaskExecutorFailsTheJobOverWhichWaitsForSlotsAndFinishesExactlyOnANewOne() throws Exception {
        MaxCountPerKeySink sink = new MaxCountPerKeySink();
        try (RegisteringCluster cluster = new RegisteringCluster()) {
            RegisteringCluster.JobManager jm = cluster.startJobManager("jobmanager-0");
            Dispatcher dispatcher = cluster.leader();
            JobId id = dispatcher.submitJob(countingJob(sink)).get(30, TimeUnit.SECONDS);

            await("waiting for slots before any task executor registered").atMost(Duration.ofSeconds(30))
                    .until(() -> phase(details(dispatcher, id)), "waiting for 4 slots; 0 free on 0 task managers"::equals);
            assertThat(details(dispatcher, id).status()).isEqualTo(JobStatus.CREATED);

            RegisteringCluster.TaskManager tm1 = cluster.startTaskExecutor("tm-1", 2);
            cluster.startTaskExecutor("tm-2", 2);
            await("running on tm-1 and tm-2").atMost(Duration.ofSeconds(30))
                    .until(() -> details(dispatcher, id).status() == JobStatus.RUNNING);
            await("a checkpoint").atMost(Duration.ofSeconds(30))
                    .until(() -> details(dispatcher, id).checkpoints().completed() >= 2);

            long killedAt = System.nanoTime();
            tm1.gateway().kill(); // as if its process died: nothing crosses any more, no heartbeats
            tm1.connector().close();

            await("the job fails over and waits for slots").atMost(Duration.ofSeconds(30))
                    .until(() -> phase(details(dispatcher, id)), "waiting for 4 slots; 2 free on 1 task manager"::equals);
            long detectedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killedAt);
            System.out.printf("task executor loss detected and the job waiting for slots %d ms after the kill%n",
                    detectedMillis);
            JobDetails waiting = details(dispatcher, id);
            assertThat(waiting.status()).isEqualTo(JobStatus.RESTARTING);
            assertThat(detectedMillis).as("after the 6 s heartbeat timeout, not before").isGreaterThanOrEqualTo(5_900);
            assertThat(waiting.recentFailures()).as("the loss is the only failure").singleElement()
                    .satisfies(f -> assertThat(f.cause()).endsWith("task manager tm-1 lost: no heartbeat for 6 s"));
            tm1.gateway().stopTasks().get(10, TimeUnit.SECONDS); // the dead process's threads
            int restartsWhileWaiting = waiting.restarts();
            // Waiting for slots is no crash loop: for 3 s nothing restarts and the job keeps waiting.
            await("still waiting, no restarts").during(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(5))
                    .pollInterval(Duration.ofMillis(200)).until(() -> {
                        JobDetails d = details(dispatcher, id);
                        return d.status() == JobStatus.RESTARTING && d.restarts() == restartsWhileWaiting
                                && "waiting for 4 slots; 2 free on 1 task manager".equals(phase(d));
                    });

            cluster.startTaskExecutor("tm-3", 2);

            JobResult result = dispatcher.requestJobResult(id).get(120, TimeUnit.SECONDS);
            assertThat(result.status()).as(String.valueOf(result.failureStackTrace())).isEqualTo(JobStatus.FINISHED);
            assertThat(sink.maxPerKey()).as("exact counts").isEqualTo(KeyedCountingJob.expectedCounts(RECORDS, KEYS));
            assertThat(jm.pool().taskExecutorIds()).containsExactly("tm-2", "tm-3");
        } finally {
            sink.release();
        }
    }

    @Test
    @Timeout(value = 3, unit = TimeUnit.MINUTES)
    void afterAJobManagerFailoverTheTaskExecutorsRegisterWithTheNewLeaderWithoutARestartAndTheJobFinishesExactly()
            throws Exception {
        MaxCountPerKeySink sink = new MaxCountPerKeySink();
        try (RegisteringCluster cluster = new RegisteringCluster()) {
            RegisteringCluster.JobManager first = cluster.startJobManager("jobmanager-0");
            Dispatcher leader = cluster.leader();
            RegisteringCluster.JobManager second = cluster.startJobManager("jobmanager-1");
            RegisteringCluster.TaskManager tm1 = cluster.startTaskExecutor("tm-1", 2);
            RegisteringCluster.TaskManager tm2 = cluster.startTaskExecutor("tm-2", 2);
            assertThat(first.pool().totalSlots()).isEqualTo(4);
            assertThat(second.pool().totalSlots()).as("a standby takes no task managers").isZero();
            JobId id = leader.submitJob(countingJob(sink)).get(30, TimeUnit.SECONDS);
            await("a checkpoint").atMost(Duration.ofSeconds(30))
                    .until(() -> details(leader, id).checkpoints().completed() >= 2);
            java.util.UUID registration1 = tm1.status().registrationId();

            cluster.stopJobManager(first);

            Dispatcher newLeader = cluster.leader();
            assertThat(newLeader).isSameAs(second.dispatcher());
            await("both task executors registered with the new leader").atMost(Duration.ofSeconds(30))
                    .until(() -> second.pool().totalSlots() == 4);
            assertThat(tm1.status().leader()).contains("jobmanager-1");
            assertThat(tm1.status().registrationId()).isNotEqualTo(registration1);
            assertThat(tm2.status().state()).isEqualTo(io.sluice.cluster.membership.ConnectionStatus.State.REGISTERED);

            JobResult result = newLeader.requestJobResult(id).get(120, TimeUnit.SECONDS);
            assertThat(result.status()).as(String.valueOf(result.failureStackTrace())).isEqualTo(JobStatus.FINISHED);
            assertThat(sink.maxPerKey()).as("exact counts").isEqualTo(KeyedCountingJob.expectedCounts(RECORDS, KEYS));
        } finally {
            sink.release();
        }
    }

    private io.sluice.graph.JobGraph countingJob(MaxCountPerKeySink sink) {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.create().setParallelism(4)
                .enableCheckpointing(Duration.ofMillis(500)).setCheckpointDir(dir.resolve("checkpoints").toString());
        KeyedCountingJob.build(env, SequenceSource.bounded(0, RECORDS - 1).withRate(RATE), KEYS,
                InjectedFailures.none(), sink);
        return env.buildJobGraph("task executors that come and go");
    }

    private static JobDetails details(Dispatcher dispatcher, JobId id) throws Exception {
        return dispatcher.requestJobDetails(id).get(10, TimeUnit.SECONDS);
    }

    private static String phase(JobDetails d) {
        return d.recovery() == null ? null : d.recovery().phase();
    }
}
