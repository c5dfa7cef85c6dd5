package io.sluice.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sluice.api.StreamExecutionEnvironment;
import io.sluice.api.sink.DiscardingSink;
import io.sluice.api.source.SequenceSource;
import io.sluice.cluster.LocalCluster;
import io.sluice.config.RestartStrategyConfig;
import io.sluice.examples.InjectedFailures;
import io.sluice.examples.KeyedCountingJob;
import io.sluice.graph.JobId;
import io.sluice.protocol.JobDetails;
import io.sluice.job.JobStatus;
import io.sluice.metrics.MetricNames;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The per-task and per-job meters of a running job, through a failure and a restart, and their removal at its end. */
class JobMetricsITCase {
    @TempDir
    Path dir;

    /** Metrics say "checkpoints failing since T", as the job's status does, and clear once a checkpoint completes. */
    @Test
    void checkpointsFailingGaugesSaySinceWhenWhileStorageRefusesAndClearAfterTheHeal() throws Exception {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        java.util.concurrent.atomic.AtomicReference<io.sluice.storage.FaultInjectingBlobStore> faults =
                new java.util.concurrent.atomic.AtomicReference<>();
        try (LocalCluster cluster = LocalCluster.builder().meterRegistry(registry)
                .blobStoreDecorator(io.sluice.storage.FaultInjectingBlobStore.capturingInto(faults)).build()) {
            StreamExecutionEnvironment env = StreamExecutionEnvironment.create().setParallelism(2)
                    .enableCheckpointing(Duration.ofMillis(100)).setCheckpointDir(dir.toString());
            KeyedCountingJob.build(env, SequenceSource.unbounded(0).withRate(2_000), 8, InjectedFailures.none(),
                    new DiscardingSink<>());
            JobId job = cluster.submit(env.buildJobGraph("failing metrics"));
            String id = job.value();
            await().atMost(Duration.ofSeconds(30)).until(() -> details(cluster, job).checkpoints().completed() >= 2);
            assertThat(gauge(registry, MetricNames.JOB_CHECKPOINTS_FAILING, id)).isZero();
            assertThat(gauge(registry, MetricNames.JOB_CHECKPOINTS_FAILING_SINCE, id)).isZero();

            faults.get().refuseConnections();
            await().atMost(Duration.ofSeconds(30)).until(() -> details(cluster, job).checkpoints().failing()
                    && gauge(registry, MetricNames.JOB_CHECKPOINTS_FAILING, id) == 1.0);
            long since = details(cluster, job).checkpoints().failingSinceMillis();
            assertThat(gauge(registry, MetricNames.JOB_CHECKPOINTS_FAILING_SINCE, id))
                    .as("Unix seconds of the first failure, as in the status").isEqualTo(since / 1000.0);
            assertThat(details(cluster, job).status()).isEqualTo(JobStatus.RUNNING);

            faults.get().heal();
            await().atMost(Duration.ofSeconds(30)).until(() -> !details(cluster, job).checkpoints().failing()
                    && gauge(registry, MetricNames.JOB_CHECKPOINTS_FAILING, id) == 0.0);
            assertThat(gauge(registry, MetricNames.JOB_CHECKPOINTS_FAILING_SINCE, id)).isZero();
            cluster.dispatcher().cancelJob(job).get(10, TimeUnit.SECONDS);
        } finally {
            if (faults.get() != null) {
                faults.get().heal();
            }
        }
    }

    private static double gauge(SimpleMeterRegistry registry, String name, String job) {
        return registry.get(name).tag(MetricNames.TAG_JOB, job).gauge().value();
    }

    @Test
    void taskAndJobMetersFollowARunningJobAndAreRemovedWhenItEnds() throws Exception {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        InjectedFailures failures = InjectedFailures.at(List.of(1_500L));
        try (LocalCluster cluster = LocalCluster.builder().meterRegistry(registry).build()) {
            StreamExecutionEnvironment env = StreamExecutionEnvironment.create().setParallelism(2)
                    .enableCheckpointing(Duration.ofMillis(100)).setCheckpointDir(dir.toString())
                    .setRestartStrategy(new RestartStrategyConfig.FixedDelay(3, Duration.ofMillis(100)));
            KeyedCountingJob.build(env, SequenceSource.unbounded(0).withRate(2_000), 8, failures, new DiscardingSink<>());
            JobId job = cluster.submit(env.buildJobGraph("metrics"));
            String id = job.value();

            // Runs, fails once at record 1500, restarts, runs again.
            await().atMost(Duration.ofSeconds(30)).until(() -> counter(registry, MetricNames.JOB_RESTARTS, id) == 1.0
                    && details(cluster, job).status() == JobStatus.RUNNING);
            await().atMost(Duration.ofSeconds(30)).until(() -> details(cluster, job).checkpoints().completed() >= 2);

            // Task meters: one per subtask of each vertex, counting up.
            java.util.Collection<Meter> recordsIn = registry.find(MetricNames.TASK_RECORDS_IN).tag(MetricNames.TAG_JOB, id).meters();
            assertThat(recordsIn).hasSize(2 * details(cluster, job).vertices().size());
            double before = sum(registry, MetricNames.TASK_RECORDS_OUT, id);
            await().atMost(Duration.ofSeconds(10)).until(() -> sum(registry, MetricNames.TASK_RECORDS_OUT, id) > before);
            assertThat(sum(registry, MetricNames.TASK_RECORDS_IN, id)).isPositive();
            assertThat(registry.find(MetricNames.TASK_BACKPRESSURE_RATIO).tag(MetricNames.TAG_JOB, id).gauges())
                    .allSatisfy(g -> assertThat(g.value()).isBetween(0.0, 1.0));
            assertThat(registry.find(MetricNames.TASK_BACKPRESSURE_TIME).tag(MetricNames.TAG_JOB, id).meters())
                    .hasSameSizeAs(recordsIn);

            // Checkpoint counters match CheckpointStats. Both move on while the job runs, so the meters are read
            // between a status answer and a later one that has caught up with them (a status answer may be up
            // to 100 ms old: the runner caches it).
            JobDetails d1 = details(cluster, job);
            double completed = counter(registry, MetricNames.JOB_CHECKPOINTS_COMPLETED, id);
            long timed = registry.get(MetricNames.JOB_CHECKPOINT_DURATION).tag(MetricNames.TAG_JOB, id).timer().count();
            long sized = registry.get(MetricNames.JOB_CHECKPOINT_SIZE).tag(MetricNames.TAG_JOB, id).summary().count();
            double failed = counter(registry, MetricNames.JOB_CHECKPOINTS_FAILED, id);
            long atLeast = d1.checkpoints().completed();
            assertThat(List.of((long) completed, timed, sized)).allSatisfy(n -> assertThat(n).isGreaterThanOrEqualTo(atLeast));
            assertThat(failed).isGreaterThanOrEqualTo(d1.checkpoints().failed());
            long most = Math.max((long) completed, Math.max(timed, sized));
            await().atMost(Duration.ofSeconds(10)).until(() -> details(cluster, job).checkpoints().completed() >= most
                    && details(cluster, job).checkpoints().failed() >= failed);
            assertThat(d1.restarts()).isEqualTo(1);

            // Recovery: one attempt after the grant, one finished recovery; time in RUNNING grows.
            assertThat(counter(registry, MetricNames.JOB_RECOVERY_ATTEMPTS, id)).isEqualTo(1.0);
            assertThat(registry.get(MetricNames.JOB_RECOVERY_DURATION).tag(MetricNames.TAG_JOB, id).timer().count())
                    .isEqualTo(1);
            double running = statusSeconds(registry, id, JobStatus.RUNNING);
            await().atMost(Duration.ofSeconds(10)).until(() -> statusSeconds(registry, id, JobStatus.RUNNING) > running);
            assertThat(statusSeconds(registry, id, JobStatus.RESTARTING)).isPositive();

            cluster.dispatcher().cancelJob(job).get(30, TimeUnit.SECONDS);
            cluster.dispatcher().requestJobResult(job).get(30, TimeUnit.SECONDS);
            await().atMost(Duration.ofSeconds(10)).untilAsserted(() ->
                    assertThat(registry.getMeters()).filteredOn(m -> id.equals(m.getId().getTag(MetricNames.TAG_JOB)))
                            .as("meters of the ended job").isEmpty());
            assertThat(registry.getMeters()).extracting(m -> m.getId().getName())
                    .as("storage meters stay").contains("sluice.storage.requests");
        } finally {
            failures.release();
        }
    }

    private static JobDetails details(LocalCluster cluster, JobId job) throws Exception {
        return cluster.dispatcher().requestJobDetails(job).get(10, TimeUnit.SECONDS);
    }

    private static double counter(SimpleMeterRegistry registry, String name, String job) {
        return registry.get(name).tag(MetricNames.TAG_JOB, job).counter().count();
    }

    private static double sum(SimpleMeterRegistry registry, String name, String job) {
        return registry.find(name).tag(MetricNames.TAG_JOB, job).functionCounters().stream()
                .mapToDouble(FunctionCounter::count).sum();
    }

    private static double statusSeconds(SimpleMeterRegistry registry, String job, JobStatus status) {
        FunctionCounter c = registry.find(MetricNames.JOB_STATUS_TIME).tag(MetricNames.TAG_JOB, job)
                .tag(MetricNames.TAG_STATUS, status.name()).functionCounter();
        return c == null ? 0.0 : c.count();
    }

}
