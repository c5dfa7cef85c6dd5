package io.sluice.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.sluice.api.StreamExecutionEnvironment;
import io.sluice.api.sink.CollectingSink;
import io.sluice.api.source.SequenceSource;
import io.sluice.api.tuple.Tuple2;
import io.sluice.checkpoint.Savepoint;
import io.sluice.cluster.LocalCluster;
import io.sluice.examples.InjectedFailures;
import io.sluice.examples.KeyedCountingJob;
import io.sluice.graph.JobGraph;
import io.sluice.graph.JobId;
import io.sluice.job.JobResult;
import io.sluice.job.JobStatus;
import io.sluice.jobmaster.RecoveryBackoff;
import io.sluice.protocol.DispatcherGateway;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The savepoints of a job stay listed when another job manager takes over and when the whole cluster
 * restarts, with the embedded HA services: they are stored in {@code <haDir>/savepoints}, and read back
 * when a job manager gains the dispatcher leadership. Before they were, the new leader listed none.
 * A corrupt stored entry is skipped (the others are listed), and a listed savepoint restores with exact
 * keyed counts.
 */
class SavepointListingFailoverITCase {
    private static final int KEYS = 8;
    private static final long RECORDS = 400_000;

    @TempDir
    Path dir;
    private LocalCluster cluster;
    private final List<CollectingSink<?>> sinks = new ArrayList<>();

    @AfterEach
    void stop() {
        if (cluster != null) {
            cluster.close();
        }
        sinks.forEach(CollectingSink::release);
    }

    private LocalCluster startCluster() {
        cluster = LocalCluster.builder().haDirectory(dir.resolve("ha")).taskExecutors(2).slotsPerTaskExecutor(2)
                .recoveryBackoff(new RecoveryBackoff(Duration.ofMillis(20), Duration.ofMillis(200), 2.0, 0.2))
                .build();
        return cluster;
    }

    /** The keyed counting job over {@code RECORDS} values; {@code rate} 0: unlimited. */
    private JobGraph countingJob(CollectingSink<Tuple2<Long, Long>> sink, double rate) {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.create().setParallelism(2)
                .enableCheckpointing(Duration.ofMillis(50))
                .setCheckpointDir(dir.resolve("checkpoints").toString());
        SequenceSource source = SequenceSource.bounded(0, RECORDS - 1);
        KeyedCountingJob.build(env, rate > 0 ? source.withRate(rate) : source, KEYS, InjectedFailures.none(), sink);
        return env.buildJobGraph("savepoint listing");
    }

    private CollectingSink<Tuple2<Long, Long>> sink() {
        CollectingSink<Tuple2<Long, Long>> s = CollectingSink.create();
        sinks.add(s);
        return s;
    }

    private static List<Savepoint> listed(DispatcherGateway dispatcher, JobId id) throws Exception {
        return dispatcher.listSavepoints(id).get(30, TimeUnit.SECONDS);
    }

    @Test
    void aNewLeaderAndARestartedClusterListTheSavepointsTakenBeforeAndOneOfThemRestoresExactly() throws Exception {
        startCluster();
        // Slow enough to be still running after a failover; the restored job reads the rest at full speed.
        JobId id = cluster.submit(countingJob(sink(), 20_000));
        DispatcherGateway first = cluster.dispatcher();
        await().atMost(Duration.ofSeconds(60)).until(() ->
                first.requestJobDetails(id).get(5, TimeUnit.SECONDS).checkpoints().completed() >= 2);
        Savepoint running = first.triggerSavepoint(id, dir.resolve("savepoints").toString(), false)
                .get(60, TimeUnit.SECONDS);
        assertThat(listed(first, id)).containsExactly(running);

        // Failover: the standby takes over and must list the savepoint the first leader took.
        LocalCluster.JobManager standby = cluster.startJobManager();
        await().atMost(Duration.ofSeconds(10)).until(() ->
                cluster.haServices().dispatcherLeaderRetrieval().currentLeader().isPresent());
        assertThat(standby.dispatcher().isLeader()).isFalse();
        cluster.stopJobManager(cluster.jobManagers().get(0));
        await().atMost(Duration.ofSeconds(10)).until(() -> standby.dispatcher().isLeader());
        assertThat(listed(standby.dispatcher(), id)).as("the new leader lists the savepoint taken before")
                .containsExactly(running);

        // The job runs on at the new leader; stop it there with a savepoint.
        await().atMost(Duration.ofSeconds(60)).until(() ->
                standby.dispatcher().requestJobDetails(id).get(5, TimeUnit.SECONDS).status() == JobStatus.RUNNING);
        Savepoint stopped = standby.dispatcher().triggerSavepoint(id, dir.resolve("savepoints").toString(), true)
                .get(60, TimeUnit.SECONDS);
        JobResult result = standby.dispatcher().requestJobResult(id).get(60, TimeUnit.SECONDS);
        assertThat(result.status()).isEqualTo(JobStatus.CANCELED);
        assertThat(stopped.checkpointId()).isGreaterThan(running.checkpointId());
        assertThat(listed(standby.dispatcher(), id)).containsExactly(running, stopped);

        // A corrupt entry beside them (say a disk error) is skipped, the others are listed after a restart.
        // (<haDir>/savepoints/<jobId>/<checkpoint id, 19 digits>, as EmbeddedHaServices documents it)
        Path entries = dir.resolve("ha").resolve("savepoints").resolve(id.value());
        assertThat(entries.resolve(String.format("%019d", running.checkpointId()))).exists();
        Files.writeString(entries.resolve(String.format("%019d", stopped.checkpointId() + 1)), "format=1\njob=garbage");
        cluster.close();
        cluster = null;

        startCluster();
        DispatcherGateway restarted = cluster.dispatcher();
        assertThat(listed(restarted, id)).as("a restarted cluster lists the savepoints of the ended job")
                .containsExactly(running, stopped);

        CollectingSink<Tuple2<Long, Long>> restoredSink = sink();
        JobId restored = cluster.submit(countingJob(restoredSink, 0), stopped.path());
        JobResult end = restarted.requestJobResult(restored).get(2, TimeUnit.MINUTES);
        assertThat(end.status()).as(String.valueOf(end.failureStackTrace())).isEqualTo(JobStatus.FINISHED);
        Map<Long, Long> last = CollectingSink.lastValuePerKey(restoredSink.results(), Tuple2::f0, Tuple2::f1);
        assertThat(last).isEqualTo(KeyedCountingJob.expectedCounts(RECORDS, KEYS));
        assertThat(listed(restarted, restored)).isEmpty();
    }
}
