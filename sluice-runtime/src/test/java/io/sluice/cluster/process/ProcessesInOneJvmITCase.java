package io.sluice.cluster.process;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sluice.api.StreamExecutionEnvironment;
import io.sluice.api.tuple.Tuple2;
import io.sluice.api.sink.CollectingSink;
import io.sluice.api.source.SequenceSource;
import io.sluice.config.Configuration;
import io.sluice.config.HighAvailabilityOptions;
import io.sluice.config.JobManagerOptions;
import io.sluice.config.TaskManagerOptions;
import io.sluice.examples.InjectedFailures;
import io.sluice.examples.KeyedCountingJob;
import io.sluice.graph.JobGraph;
import io.sluice.job.JobResult;
import io.sluice.job.JobStatus;
import io.sluice.testutil.ReverseOrderCloser;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A {@link JobManagerProcess} and two {@link TaskManagerProcess}es in one JVM, talking only over
 * the network (RPC on 127.0.0.1, TCP data exchange): the task managers register with the job
 * manager they are pointed at ({@code jobmanager.rpc.host/port}, embedded HA on one host), and a
 * job across both (records between them over TCP) runs to exact counts.
 */
@Timeout(120)
class ProcessesInOneJvmITCase {
    private static final int KEYS = 4;

    @TempDir
    Path dir;

    private final ReverseOrderCloser started = new ReverseOrderCloser();

    @AfterEach
    void stop() {
        started.close();
    }

    private Configuration jobManagerConfig() {
        return new Configuration()
                .set(HighAvailabilityOptions.TYPE, "embedded")
                .set(HighAvailabilityOptions.DIRECTORY, dir.resolve("ha").toString())
                .set(JobManagerOptions.RPC_PORT, 0);
    }

    private TaskManagerProcess taskManager(JobManagerProcess jm, int slots) throws Exception {
        return taskManager(jm, slots, new Configuration());
    }

    private TaskManagerProcess taskManager(JobManagerProcess jm, int slots, Configuration extra) throws Exception {
        Configuration c = jobManagerConfig().set(JobManagerOptions.RPC_PORT, jm.address().rpcPort());
        extra.toMap().forEach(c::setString);
        TaskManagerProcess tm = TaskManagerProcess.start(c, slots, new SimpleMeterRegistry());
        started.add(tm);
        return tm;
    }

    @Test
    void taskManagersRegisterOverTheNetworkAndAJobAcrossThemCountsExactly() throws Exception {
        JobManagerProcess jm = JobManagerProcess.start(jobManagerConfig(), null, new SimpleMeterRegistry());
        started.add(jm);
        await().atMost(Duration.ofSeconds(20)).until(() -> jm.dispatcher().isLeader());
        taskManager(jm, 1);
        taskManager(jm, 1);
        await().atMost(Duration.ofSeconds(20)).until(() -> jm.slotPool().totalSlots() == 2);
        assertThat(jm.taskExecutors()).hasSize(2);
        assertThat(jm.slotPool().taskExecutors()).as("the registered task executors' data addresses")
                .allSatisfy(te -> assertThat(te.dataAddress()).isNotNull());
        runCountingJobAcrossTheTaskManagers(jm);
    }

    /**
     * Servers bound to all interfaces, each process advertising another loopback address: the task
     * managers reach the job manager, and the job manager and each other reach them, at the advertised
     * addresses (with the bound ports), and the job across them counts exactly.
     */
    @Test
    void processesAreReachedAtTheirAdvertisedHosts() throws Exception {
        JobManagerProcess jm = JobManagerProcess.start(jobManagerConfig().set(JobManagerOptions.RPC_HOST, "0.0.0.0")
                .set(JobManagerOptions.RPC_ADVERTISED_HOST, "127.0.0.2"), null, new SimpleMeterRegistry());
        started.add(jm);
        assertThat(jm.address().rpcHost()).as("the job manager's advertised RPC host").isEqualTo("127.0.0.2");
        await().atMost(Duration.ofSeconds(20)).until(() -> jm.dispatcher().isLeader());
        List<TaskManagerProcess> tms = new ArrayList<>();
        for (String host : List.of("127.0.0.3", "127.0.0.4")) {
            tms.add(taskManager(jm, 1, new Configuration().set(JobManagerOptions.RPC_HOST, "127.0.0.2")
                    .set(TaskManagerOptions.HOST, "0.0.0.0").set(TaskManagerOptions.ADVERTISED_HOST, host)));
        }
        assertThat(tms).extracting(tm -> tm.rpcAddress().host()).containsExactly("127.0.0.3", "127.0.0.4");
        await().atMost(Duration.ofSeconds(20)).until(() -> jm.slotPool().totalSlots() == 2);
        assertThat(jm.slotPool().taskExecutors()).as("the registered task executors' data addresses")
                .extracting(te -> te.dataAddress().substring(0, te.dataAddress().lastIndexOf(':')))
                .containsExactlyInAnyOrder("127.0.0.3", "127.0.0.4");
        runCountingJobAcrossTheTaskManagers(jm);
    }

    private void runCountingJobAcrossTheTaskManagers(JobManagerProcess jm) throws Exception {
        long records = 20_000;
        CollectingSink<Tuple2<Long, Long>> sink = CollectingSink.create();
        try {
            StreamExecutionEnvironment env = StreamExecutionEnvironment.create().setParallelism(2)
                    .enableCheckpointing(Duration.ofMillis(100)).setCheckpointDir(dir.resolve("checkpoints").toString());
            KeyedCountingJob.build(env, SequenceSource.bounded(0, records - 1).withRate(20_000), KEYS,
                    InjectedFailures.none(), sink);
            JobGraph graph = env.buildJobGraph("counting across task managers");
            jm.dispatcher().submitJob(graph).get(30, TimeUnit.SECONDS);
            JobResult result;
            try {
                result = jm.dispatcher().requestJobResult(graph.jobId()).get(60, TimeUnit.SECONDS);
            } catch (java.util.concurrent.TimeoutException e) {
                throw new AssertionError("The job did not end; its details: "
                        + jm.dispatcher().requestJobDetails(graph.jobId()).get(10, TimeUnit.SECONDS), e);
            }
            assertThat(result.status()).as(String.valueOf(result.failureMessage())).isEqualTo(JobStatus.FINISHED);
            assertThat(CollectingSink.lastValuePerKey(sink.results(), Tuple2::f0, Tuple2::f1))
                    .isEqualTo(KeyedCountingJob.expectedCounts(records, KEYS));
        } finally {
            sink.release();
        }
    }
}
