package io.sluice.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.sluice.api.StreamExecutionEnvironment;
import io.sluice.api.functions.SinkFunction;
import io.sluice.cluster.LocalCluster;
import io.sluice.graph.JobId;
import io.sluice.job.ExecutionState;
import io.sluice.job.JobStatus;
import io.sluice.protocol.JobDetails;
import io.sluice.protocol.SubtaskStatus;
import io.sluice.protocol.VertexStatus;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The record counters of a task that ended stay in its job's details: a task that ended is gone from its task
 * executor, so its end state carries its last counters to the job master. Before, a finished source showed 0
 * records out while its job still ran, and a FINISHED job of 2,000 records showed the counters of the last status
 * request before its end (1,022-1,910 in 150 runs of the keyed counting example).
 */
class EndedTaskCountersITCase {
    private static final int RECORDS = 2_000;
    private static final Duration WAIT = Duration.ofSeconds(30);

    @Test
    void aFinishedSourceKeepsItsCountersWhileItsJobRunsAndAFinishedJobShowsEveryRecord() throws Exception {
        String gate = UUID.randomUUID().toString();
        HeldSink.GATES.put(gate, new CountDownLatch(1));
        try (LocalCluster cluster = LocalCluster.builder().taskExecutors(1).slotsPerTaskExecutor(2).build()) {
            StreamExecutionEnvironment env = StreamExecutionEnvironment.create().setParallelism(2);
            env.fromSequence(0, RECORDS - 1).keyBy(v -> v % 7).map(v -> v + 1).addSink(new HeldSink(gate), "held");
            JobId job = cluster.submit(env.buildJobGraph("ended task counters"));

            // The source reads all its input and finishes; the sink holds its first record.
            await("the source finished").atMost(WAIT).until(() -> subtaskStates(source(details(cluster, job)))
                    .allMatch(s -> s.state() == ExecutionState.FINISHED));
            VertexStatus finishedSource = source(details(cluster, job));
            assertThat(details(cluster, job).status()).isEqualTo(JobStatus.RUNNING);
            assertThat(finishedSource.recordsOut()).as("records out of the finished source").isEqualTo(RECORDS);
            assertThat(subtaskStates(finishedSource).mapToLong(SubtaskStatus::recordsOut).sum()).isEqualTo(RECORDS);

            HeldSink.GATES.get(gate).countDown();
            assertThat(cluster.dispatcher().requestJobResult(job).get(WAIT.toSeconds(), TimeUnit.SECONDS).status())
                    .isEqualTo(JobStatus.FINISHED);
            JobDetails end = details(cluster, job);
            assertThat(end.status()).isEqualTo(JobStatus.FINISHED);
            VertexStatus sink = end.vertices().get(end.vertices().size() - 1);
            assertThat(source(end).recordsOut()).as("records out of the source in the finished job's details")
                    .isEqualTo(RECORDS);
            assertThat(sink.recordsIn()).as("records into the sink in the finished job's details").isEqualTo(RECORDS);
            assertThat(subtaskStates(sink).mapToLong(SubtaskStatus::recordsIn).sum()).isEqualTo(RECORDS);
        } finally {
            HeldSink.GATES.remove(gate).countDown();
        }
    }

    private static JobDetails details(LocalCluster cluster, JobId job) throws Exception {
        return cluster.dispatcher().requestJobDetails(job).get(5, TimeUnit.SECONDS);
    }

    private static VertexStatus source(JobDetails details) {
        return details.vertices().get(0);
    }

    private static java.util.stream.Stream<SubtaskStatus> subtaskStates(VertexStatus v) {
        return v.subtasks().stream();
    }

    /** Waits at its first record until its gate opens. */
    static final class HeldSink implements SinkFunction<Long> {
        static final Map<String, CountDownLatch> GATES = new ConcurrentHashMap<>();
        private final String gate;

        HeldSink(String gate) {
            this.gate = gate;
        }

        @Override
        public void invoke(Long value) throws InterruptedException {
            GATES.get(gate).await();
        }
    }
}
