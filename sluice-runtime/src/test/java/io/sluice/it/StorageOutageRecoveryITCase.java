package io.sluice.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.sluice.api.StreamExecutionEnvironment;
import io.sluice.api.tuple.Tuple2;
import io.sluice.api.sink.CollectingSink;
import io.sluice.api.source.SequenceSource;
import io.sluice.cluster.LocalCluster;
import io.sluice.protocol.DispatcherGateway;
import io.sluice.examples.InjectedFailures;
import io.sluice.examples.KeyedCountingJob;
import io.sluice.graph.JobId;
import io.sluice.protocol.JobDetails;
import io.sluice.job.JobStatus;
import io.sluice.jobmaster.RecoveryBackoff;
import io.sluice.protocol.RecoveryStatus;
import io.sluice.storage.FaultInjectingBlobStore;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * With the default recovery backoff, a job manager whose recovery waits on refusing checkpoint
 * storage sends it one request per attempt, never retries faster than the backoff, never waits
 * longer than its 1 s cap between attempts' starts plus the attempt itself, shows the error in
 * status, and runs the job once storage heals. Only counts and lower bounds of time are asserted
 * (a slow machine makes fewer attempts, not more); the timing figures are measured by
 * {@code StorageOutageRecoveryBenchmark} (sluice-storage-s3, see docs/benchmarks.md).
 */
class StorageOutageRecoveryITCase {
    /** The promised cap of the default recovery backoff (not read from the code under test). */
    private static final Duration CAP = Duration.ofSeconds(1);

    @TempDir
    Path dir;

    @Test
    void recoveryOnRefusingStorageRetriesAboutOncePerSecondAndRunsAfterTheHeal() throws Exception {
        AtomicReference<FaultInjectingBlobStore> faults = new AtomicReference<>();
        CollectingSink<Tuple2<Long, Long>> sink = CollectingSink.create();
        try (LocalCluster cluster = LocalCluster.builder().haDirectory(dir.resolve("ha"))
                .blobStoreDecorator(FaultInjectingBlobStore.capturingInto(faults)).build()) {
            StreamExecutionEnvironment env = StreamExecutionEnvironment.create().setParallelism(2)
                    .enableCheckpointing(Duration.ofMillis(50)).setCheckpointDir(dir.resolve("checkpoints").toString());
            KeyedCountingJob.build(env, SequenceSource.bounded(0, Long.MAX_VALUE - 1).withRate(2_000), 8,
                    InjectedFailures.none(), sink);
            JobId id = cluster.submit(env.buildJobGraph("outage"));
            DispatcherGateway first = cluster.dispatcher();
            await().atMost(Duration.ofSeconds(30)).until(() -> details(first, id).checkpoints().completed() >= 2);
            LocalCluster.JobManager standby = cluster.startJobManager();
            FaultInjectingBlobStore storage = faults.get();

            storage.refuseConnections();
            cluster.stopJobManager(cluster.jobManagers().get(0));
            await().atMost(Duration.ofSeconds(20)).until(() -> standby.dispatcher().isLeader()
                    && attempt(standby.dispatcher(), id) >= 2);
            long calls0 = storage.calls();
            int attempt0 = attempt(standby.dispatcher(), id);
            long t0 = System.nanoTime();
            int target = attempt0 + 4; // once capped, attempts start 0.8-1.0 s apart (+/-20 % jitter, never above 1 s)
            java.util.concurrent.atomic.AtomicLong longestWait = new java.util.concurrent.atomic.AtomicLong();
            await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(10)).until(() -> {
                RecoveryStatus r = details(standby.dispatcher(), id).recovery();
                if (r != null) {
                    longestWait.accumulateAndGet(r.nextRetryMillis(), Math::max);
                }
                return r != null && r.attempt() >= target;
            });
            double seconds = (System.nanoTime() - t0) / 1e9;
            long calls = storage.calls() - calls0;
            int attempts = attempt(standby.dispatcher(), id) - attempt0;

            RecoveryStatus shown = details(standby.dispatcher(), id).recovery();
            assertThat(details(standby.dispatcher(), id).status()).isEqualTo(JobStatus.INITIALIZING);
            assertThat(shown.lastError()).contains("Connection refused");
            assertThat(longestWait.get()).as("no wait between attempts above the 1 s cap")
                    .isPositive().isLessThanOrEqualTo(CAP.toMillis());
            assertThat(calls).as("one storage request per attempt (%d attempts in %.1f s)", attempts, seconds)
                    .isLessThanOrEqualTo(attempts + 1L);
            double minDelay = RecoveryBackoff.DEFAULT.initial().toMillis() / 1000.0 * (1 - RecoveryBackoff.DEFAULT.jitter());
            assertThat(seconds).as("never faster than the backoff").isGreaterThanOrEqualTo((attempts - 1) * minDelay);

            storage.heal();
            await().atMost(Duration.ofSeconds(30)).until(() -> details(standby.dispatcher(), id).status() == JobStatus.RUNNING);
            standby.dispatcher().cancelJob(id).get(10, TimeUnit.SECONDS);
        } finally {
            sink.release();
        }
    }

    private static int attempt(DispatcherGateway d, JobId id) throws Exception {
        JobDetails details = details(d, id);
        return details.recovery() == null ? 0 : details.recovery().attempt();
    }

    private static JobDetails details(DispatcherGateway d, JobId id) throws Exception {
        return d.requestJobDetails(id).get(5, TimeUnit.SECONDS);
    }
}
