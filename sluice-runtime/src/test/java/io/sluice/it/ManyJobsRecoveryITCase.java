package io.sluice.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.sluice.api.StreamExecutionEnvironment;
import io.sluice.api.sink.CollectingSink;
import io.sluice.api.source.SequenceSource;
import io.sluice.api.tuple.Tuple2;
import io.sluice.cluster.LocalCluster;
import io.sluice.config.Configuration;
import io.sluice.config.JobManagerOptions;
import io.sluice.config.RestartStrategyConfig;
import io.sluice.examples.InjectedFailures;
import io.sluice.examples.KeyedCountingJob;
import io.sluice.graph.JobId;
import io.sluice.job.JobResult;
import io.sluice.job.JobStatus;
import io.sluice.jobmaster.RecoveryBackoff;
import io.sluice.protocol.DispatcherGateway;
import io.sluice.protocol.JobDetails;
import io.sluice.protocol.JobSummary;
import io.sluice.storage.FaultInjectingBlobStore;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Many small jobs on one {@link LocalCluster} and a job-manager restart: the standby that takes over
 * recovers every job with at most {@code jobmanager.recovery.max-concurrent-reads} storage reads in
 * flight (counted by the checkpoint storage's {@link FaultInjectingBlobStore}, each read delayed so
 * that unbounded reads would overlap), waiting jobs say how many jobs are ahead of them, status and
 * list keep answering, every job is RUNNING again, and every job's counts are exact.
 *
 * <p>Jobs: {@code -Dsluice.it.manyJobs=N} (default 100; the cluster scales its slots with it, so
 * 1,000 runs on the same code path). Prints the figures it measured.
 */
class ManyJobsRecoveryITCase {
    private static final int JOBS = Integer.getInteger("sluice.it.manyJobs", 100);
    private static final int MAX_READS = 4;
    private static final int KEYS = 4;
    /**
     * Records a second per job: 15,000 a second over all jobs (150 each at 100 jobs, 15 each at 1,000), so the
     * machine's load does not grow with the number of jobs.
     */
    private static final long RATE = Math.max(15, 15_000 / JOBS);
    /**
     * How long each job's input lasts: enough that every job still runs when the job manager restarts and for
     * a while after it, also on a loaded machine: 30 s at 100 jobs, 300 s at 1,000, whose start (all RUNNING
     * with a checkpoint) and recovery the test prints.
     */
    private static final long INPUT_SECONDS = Math.max(30, JOBS * 3L / 10);
    private static final long RECORDS = RATE * INPUT_SECONDS;
    /** Checkpoints of all jobs together at most about 200 a second, so a small machine keeps up. */
    private static final Duration CHECKPOINT_INTERVAL = Duration.ofMillis(Math.max(500, JOBS * 5L));
    /** How long the jobs may take to start, and to run again after the restart. */
    private static final Duration WAIT = Duration.ofSeconds(180 + INPUT_SECONDS + JOBS / 2);
    private static final Duration READ_LATENCY = Duration.ofMillis(40);

    @TempDir
    Path dir;
    private final AtomicReference<FaultInjectingBlobStore> storage = new AtomicReference<>();
    private final List<CollectingSink<Tuple2<Long, Long>>> sinks = new ArrayList<>();
    private LocalCluster cluster;

    @AfterEach
    void stop() {
        if (cluster != null) {
            cluster.close();
        }
        sinks.forEach(CollectingSink::release);
    }

    @Test
    @Timeout(value = 20, unit = TimeUnit.MINUTES) // not the default 5: at 1,000 jobs (-Psoak) each job's input lasts 5 minutes
    void aRestartedJobManagerRecoversEveryJobWithBoundedReadsAndExactCounts() throws Exception {
        int taskExecutors = 10;
        cluster = LocalCluster.builder().haDirectory(dir.resolve("ha"))
                .taskExecutors(taskExecutors).slotsPerTaskExecutor((JOBS + taskExecutors - 1) / taskExecutors)
                .blobStoreDecorator(FaultInjectingBlobStore.capturingInto(storage))
                .recoveryBackoff(new RecoveryBackoff(Duration.ofMillis(20), Duration.ofMillis(200), 2.0, 0.2))
                .configuration(new Configuration().set(JobManagerOptions.RECOVERY_MAX_CONCURRENT_READS, MAX_READS))
                .build();
        long submittedAt = System.nanoTime();
        List<JobId> ids = submitJobs();
        DispatcherGateway first = cluster.dispatcher();
        await().atMost(WAIT).pollInterval(Duration.ofMillis(200))
                .until(() -> allRunningWithACheckpoint(first, ids));
        System.out.printf("ManyJobsRecoveryITCase: %d jobs RUNNING with a checkpoint %d ms after the first"
                + " submission (each job's input lasts %d s)%n", JOBS, (System.nanoTime() - submittedAt) / 1_000_000,
                INPUT_SECONDS);

        LocalCluster.JobManager standby = cluster.startJobManager();
        await().atMost(Duration.ofSeconds(10)).until(() ->
                cluster.haServices().dispatcherLeaderRetrieval().currentLeader().isPresent());
        FaultInjectingBlobStore store = storage.get();
        store.setReadLatency(READ_LATENCY);
        store.resetMaxReadsInFlight();
        long readsBefore = store.reads();
        long stoppedAt = System.nanoTime();
        cluster.stopJobManager(cluster.jobManagers().get(0));
        await().atMost(Duration.ofSeconds(10)).until(() -> standby.dispatcher().isLeader());
        DispatcherGateway dispatcher = standby.dispatcher();

        Answers answers = pollUntilAllRunning(dispatcher, ids);
        long recoveredMillis = (System.nanoTime() - stoppedAt) / 1_000_000;
        long recoveryReads = store.reads() - readsBefore;
        int maxInFlight = store.maxReadsInFlight();
        store.setReadLatency(Duration.ZERO);
        System.out.printf("ManyJobsRecoveryITCase: %d jobs, max-concurrent-reads %d, read latency %d ms: all recovered"
                        + " (%d RUNNING, %d already FINISHED) %d ms after the leader stopped; storage reads during"
                        + " recovery %d, most in flight at once %d;"
                        + " status/list answers %d (list p50 %.1f / max %.1f ms, status p50 %.1f / max %.1f ms);"
                        + " status answers saying 'queued for recovery' %d%n",
                JOBS, MAX_READS, READ_LATENCY.toMillis(), answers.running(), answers.finished(), recoveredMillis,
                recoveryReads, maxInFlight,
                answers.count(), percentile(answers.list(), 50), percentile(answers.list(), 100),
                percentile(answers.status(), 50), percentile(answers.status(), 100), answers.queued());

        assertThat(maxInFlight).as("storage reads in flight never above the bound").isLessThanOrEqualTo(MAX_READS)
                .as("the bound was reached: reads did overlap").isEqualTo(MAX_READS);
        assertThat(recoveryReads).as("the latest checkpoint's metadata of every job, once (state is inline)")
                .isEqualTo(JOBS);
        assertThat(answers.queued).as("waiting jobs said how many jobs are ahead").isPositive();

        for (int i = 0; i < ids.size(); i++) {
            JobResult result = dispatcher.requestJobResult(ids.get(i)).get(WAIT.toSeconds(), TimeUnit.SECONDS);
            assertThat(result.status()).as("job %d: %s", i, result.failureMessage()).isEqualTo(JobStatus.FINISHED);
            Map<Long, Long> last = CollectingSink.lastValuePerKey(sinks.get(i).results(), Tuple2::f0, Tuple2::f1);
            assertThat(last).as("exact counts of job %d", i).isEqualTo(KeyedCountingJob.expectedCounts(RECORDS, KEYS));
        }
    }

    private List<JobId> submitJobs() throws Exception {
        List<JobId> ids = new ArrayList<>();
        for (int i = 0; i < JOBS; i++) {
            CollectingSink<Tuple2<Long, Long>> sink = CollectingSink.create();
            sinks.add(sink);
            StreamExecutionEnvironment env = StreamExecutionEnvironment.create().setParallelism(1)
                    .enableCheckpointing(CHECKPOINT_INTERVAL)
                    .setCheckpointDir(dir.resolve("checkpoints").toString())
                    .setRestartStrategy(new RestartStrategyConfig.FixedDelay(10, Duration.ofMillis(10)));
            // Slow enough to still run when the job manager restarts, and after it.
            KeyedCountingJob.build(env, SequenceSource.bounded(0, RECORDS - 1).withRate(RATE), KEYS,
                    InjectedFailures.none(), sink);
            ids.add(cluster.submit(env.buildJobGraph("many jobs " + i)));
        }
        return ids;
    }

    private static boolean allRunningWithACheckpoint(DispatcherGateway dispatcher, List<JobId> ids) throws Exception {
        for (JobId id : ids) {
            JobDetails d = dispatcher.requestJobDetails(id).get(5, TimeUnit.SECONDS);
            if (d.status() != JobStatus.RUNNING || d.checkpoints().completed() < 1) {
                return false;
            }
        }
        return true;
    }

    /** Status and list answers while the jobs recover: how many, the slowest, and how many said "queued". */
    private record Answers(int count, List<Long> list, List<Long> status, int queued, long running, long finished) {
    }

    /** The {@code p}-th percentile of {@code nanos}, in milliseconds. */
    private static double percentile(List<Long> nanos, int p) {
        List<Long> sorted = nanos.stream().sorted().toList();
        int i = Math.max(0, (int) Math.ceil(p / 100.0 * sorted.size()) - 1);
        return sorted.get(i) / 1e6;
    }

    private static Answers pollUntilAllRunning(DispatcherGateway dispatcher, List<JobId> ids) throws Exception {
        long deadline = System.nanoTime() + WAIT.toNanos();
        int count = 0;
        int queued = 0;
        List<Long> listNanos = new ArrayList<>();
        List<Long> statusNanos = new ArrayList<>();
        int next = ids.size() - 1; // the last job waits longest
        while (System.nanoTime() < deadline) {
            long t0 = System.nanoTime();
            List<JobSummary> list = dispatcher.listJobs().get(5, TimeUnit.SECONDS);
            long t1 = System.nanoTime();
            JobDetails d = dispatcher.requestJobDetails(ids.get(next)).get(5, TimeUnit.SECONDS);
            listNanos.add(t1 - t0);
            statusNanos.add(System.nanoTime() - t1);
            count += 2;
            if (d.recovery() != null && d.recovery().phase().startsWith("queued for recovery: ")) {
                queued++;
            }
            next = next == 0 ? ids.size() - 1 : next - 1;
            // Recovered: running again under the new leader (or, on a slow machine, already finished after that).
            if (list.size() == ids.size() && list.stream().allMatch(j -> j.status() == JobStatus.RUNNING
                    || j.status() == JobStatus.FINISHED)) {
                long finished = list.stream().filter(j -> j.status() == JobStatus.FINISHED).count();
                return new Answers(count, listNanos, statusNanos, queued, ids.size() - finished, finished);
            }
            Thread.onSpinWait();
        }
        throw new AssertionError("Not all " + ids.size() + " jobs RUNNING (or FINISHED) within " + WAIT.toSeconds()
                + " s after the restart");
    }
}
