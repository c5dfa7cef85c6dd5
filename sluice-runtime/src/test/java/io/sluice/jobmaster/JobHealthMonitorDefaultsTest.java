package io.sluice.jobmaster;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sluice.api.StreamExecutionEnvironment;
import io.sluice.checkpoint.CheckpointStorage;
import io.sluice.checkpoint.CompletedCheckpoint;
import io.sluice.checkpoint.StandaloneCompletedCheckpointStore;
import io.sluice.config.CheckpointingOptions;
import io.sluice.graph.JobGraph;
import io.sluice.job.JobStatus;
import io.sluice.protocol.JobHealth;
import io.sluice.storage.LocalFileBlobStore;
import io.sluice.util.ManualClock;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * "No checkpoint since T" with the defaults: {@code checkpoints.stale-after} is not set in any of
 * these jobs, so the threshold is {@value CheckpointingOptions#DEFAULT_STALE_INTERVALS} checkpoint
 * intervals, at least {@link CheckpointingOptions#MIN_DEFAULT_STALE_AFTER}. On a manual clock: the
 * mark appears just after the threshold, names the latest completed checkpoint's time (or the job
 * master's start before the first), goes when a checkpoint completes and never shows for an ended
 * job or one that does not checkpoint.
 */
class JobHealthMonitorDefaultsTest {
    private static final long T0 = 1_780_000_000_000L;

    @TempDir
    Path root;

    private final ManualClock clock = new ManualClock(T0);
    private JobGraph graph;
    private StandaloneCompletedCheckpointStore store;

    private JobHealthMonitor monitor(StreamExecutionEnvironment env) {
        env.setParallelism(1).setCheckpointDir(root.toString());
        env.fromSequence(0, 10).map(v -> v).addSink(v -> { });
        graph = env.buildJobGraph("stale-defaults");
        CheckpointStorage storage = new CheckpointStorage(new LocalFileBlobStore(root), new SimpleMeterRegistry());
        store = new StandaloneCompletedCheckpointStore(graph.jobId(), graph.config().retainedCheckpoints(), storage);
        return new JobHealthMonitor(graph.jobId(), graph.config(), store, clock);
    }

    @Test
    void theDefaultThresholdIsFiveIntervalsAndTheMarkNamesTheJobMastersStartBeforeAnyCheckpoint() {
        assertThat(CheckpointingOptions.STALE_AFTER.defaultValue()).as("the key's default: derived").isZero();
        JobHealthMonitor monitor = monitor(StreamExecutionEnvironment.create().enableCheckpointing(Duration.ofSeconds(10)));

        clock.advance(Duration.ofSeconds(50));
        JobHealth atThreshold = monitor.health(JobStatus.RUNNING);
        assertThat(atThreshold.staleAfterMillis()).as("5 intervals of 10 s").isEqualTo(50_000);
        assertThat(atThreshold.checkpointsStale()).as("50 s: not older than the threshold").isFalse();
        assertThat(atThreshold.marks()).isEmpty();

        clock.advance(Duration.ofMillis(1));
        JobHealth stale = monitor.health(JobStatus.RUNNING);
        assertThat(stale.marks()).containsExactly("no checkpoint since " + Instant.ofEpochMilli(T0));
        assertThat(monitor.checkpointAgeMillis(JobStatus.RUNNING)).isEqualTo(50_001);
    }

    @Test
    void shortIntervalsGetTheMinimumOfThirtySeconds() {
        JobHealthMonitor monitor = monitor(StreamExecutionEnvironment.create().enableCheckpointing(Duration.ofSeconds(1)));

        clock.advance(Duration.ofSeconds(30));
        assertThat(monitor.health(JobStatus.RUNNING).staleAfterMillis())
                .isEqualTo(CheckpointingOptions.MIN_DEFAULT_STALE_AFTER.toMillis()).isEqualTo(30_000);
        assertThat(monitor.health(JobStatus.RUNNING).checkpointsStale()).as("not 5 s: 30 s").isFalse();
        clock.advance(Duration.ofMillis(1));
        assertThat(monitor.health(JobStatus.RUNNING).checkpointsStale()).isTrue();
    }

    @Test
    void aCompletedCheckpointClearsTheMarkWhichComesBackNamingItOnceItIsOlderThanTheThreshold() throws Exception {
        JobHealthMonitor monitor = monitor(StreamExecutionEnvironment.create().enableCheckpointing(Duration.ofSeconds(10)));
        clock.advance(Duration.ofSeconds(60));
        assertThat(monitor.health(JobStatus.RUNNING).checkpointsStale()).isTrue();

        long completed = clock.currentTimeMillis();
        store.addCheckpoint(new CompletedCheckpoint(graph.jobId(), 1, completed - 200, completed, List.of(),
                "unused-metadata-path"));
        assertThat(monitor.health(JobStatus.RUNNING).marks()).as("a checkpoint just completed").isEmpty();

        clock.advance(Duration.ofSeconds(50));
        assertThat(monitor.health(JobStatus.RUNNING).checkpointsStale()).isFalse();
        clock.advance(Duration.ofMillis(1));
        assertThat(monitor.health(JobStatus.RUNNING).marks())
                .containsExactly("no checkpoint since " + Instant.ofEpochMilli(completed));
    }

    @Test
    void anEndedJobOrOneThatDoesNotCheckpointIsNeverMarked() {
        JobHealthMonitor checkpointing = monitor(StreamExecutionEnvironment.create()
                .enableCheckpointing(Duration.ofSeconds(10)));
        clock.advance(Duration.ofHours(1));
        assertThat(checkpointing.health(JobStatus.RUNNING).checkpointsStale()).isTrue();
        for (JobStatus ended : List.of(JobStatus.FINISHED, JobStatus.CANCELED, JobStatus.FAILED)) {
            assertThat(checkpointing.health(ended).checkpointsStale()).as(ended.name()).isFalse();
        }

        JobHealthMonitor notCheckpointing = monitor(StreamExecutionEnvironment.create());
        clock.advance(Duration.ofHours(1));
        assertThat(notCheckpointing.health(JobStatus.RUNNING)).isEqualTo(JobHealth.NONE);
    }
}
