package io.sluice.bench.recovery;

import io.sluice.bench.recovery.BenchSupport.Stats;
import io.sluice.cluster.LocalCluster;
import io.sluice.protocol.DispatcherGateway;
import io.sluice.graph.JobId;
import io.sluice.protocol.JobDetails;
import io.sluice.job.JobStatus;
import io.sluice.storage.FaultInjectingBlobStore;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Status-query latency ({@code Dispatcher.requestJobDetails(id).get()}, measured from the calling
 * thread, so it includes the hop onto the Dispatcher's main thread and back):
 *
 * <ol type="a">
 *   <li>while the recovery of a job that moved to a standby job manager hangs on checkpoint
 *       storage ({@link FaultInjectingBlobStore#hang()}); every answer must be INITIALIZING;</li>
 *   <li>from the very first query after a new job manager starts on an HA directory holding many
 *       stored jobs, while checkpoint storage takes 50 ms per call.</li>
 * </ol>
 *
 * <p>Run: {@code java -Xmx2g -cp <classpath> io.sluice.bench.recovery.StatusLatencyBenchmark [--smoke]}.
 */
public final class StatusLatencyBenchmark {
    /** Apache Flink 1.20.5, same machine, p99 of status queries during task failovers. */
    static final String FLINK_FAILOVER_P99 = "1.4-9 ms";

    private StatusLatencyBenchmark() {}

    /** Settings; {@link #smoke()} is a tiny run for the smoke test. */
    record Settings(int warmupQueries, int hungQueries, int storedJobs, int startQueries, Duration storageLatency) {
        static Settings full() {
            return new Settings(5_000, 20_000, 50, 10_000, Duration.ofMillis(50));
        }

        static Settings smoke() {
            return new Settings(100, 200, 3, 200, Duration.ofMillis(50));
        }
    }

    /** (a) status while recovery hangs on storage. */
    record HungResult(Stats stats, int queries, int initializing, String phase, int blockedCalls) {
    }

    /** (b) status from the first query after a job manager starts. */
    record StartResult(int storedJobs, long firstQueryNanos, String firstQueryStatus, Stats stats, int queries,
                       Map<JobStatus, Integer> statuses, long allRunningNanos, long storageCallsDuring) {
    }

    record Result(HungResult hung, StartResult start) {
    }

    public static void main(String[] args) throws Exception {
        BenchSupport.quietLogging();
        boolean smoke = BenchSupport.smoke(args);
        Result r = run(smoke ? Settings.smoke() : Settings.full());
        print(r, smoke);
        System.exit(0);
    }

    static Result run(Settings s) throws Exception {
        HungResult hung = hungRecovery(s);
        StartResult start = afterJobManagerStart(s);
        return new Result(hung, start);
    }

    static HungResult hungRecovery(Settings s) throws Exception {
        Path dir = BenchSupport.tempDir("sluice-status-hung");
        AtomicReference<FaultInjectingBlobStore> faults = new AtomicReference<>();
        LocalCluster cluster = BenchSupport.cluster(dir, faults, 2, 2);
        try {
            JobId id = cluster.submit(Jobs.countingJob("status while recovery hangs", dir.resolve("checkpoints"), 2,
                    20_000, Duration.ofMillis(20), 1));
            DispatcherGateway first = cluster.dispatcher();
            BenchSupport.await("2 completed checkpoints", Duration.ofSeconds(60),
                    () -> first.requestJobDetails(id).get(5, TimeUnit.SECONDS).checkpoints().completed() >= 2);
            LocalCluster.JobManager standby = cluster.startJobManager();
            // A standby recovers the job only once it leads the dispatcher (after the leader stops).
            FaultInjectingBlobStore storage = faults.get();
            storage.hang();
            cluster.stopJobManager(cluster.jobManagers().get(0));
            DispatcherGateway dispatcher = standby.dispatcher();
            // A blocked call alone is not enough: the stopping leader's own storage calls block too, and until the
            // standby leads the dispatcher it does not know the job (UnknownJobException: "a standby; ask the leader").
            BenchSupport.await("the standby to lead and its recovery to block on storage", Duration.ofSeconds(30),
                    () -> storage.blockedCalls() > 0 && knowsJob(dispatcher, id));

            for (int i = 0; i < s.warmupQueries(); i++) {
                expectInitializing(dispatcher.requestJobDetails(id).get());
            }
            long[] samples = new long[s.hungQueries()];
            int initializing = 0;
            String phase = null;
            for (int i = 0; i < samples.length; i++) {
                long t0 = System.nanoTime();
                JobDetails d = dispatcher.requestJobDetails(id).get();
                samples[i] = System.nanoTime() - t0;
                expectInitializing(d);
                initializing++;
                phase = d.recovery().phase();
            }
            int blocked = storage.blockedCalls();
            if (blocked == 0) {
                throw new IllegalStateException("Storage stopped hanging during the measurement");
            }
            storage.heal();
            return new HungResult(Stats.of(samples), samples.length, initializing, phase, blocked);
        } finally {
            FaultInjectingBlobStore f = faults.get();
            if (f != null) {
                f.heal();
            }
            cluster.close();
            BenchSupport.deleteQuietly(dir);
        }
    }

    /** Whether {@code dispatcher} answers for the job (it leads and recovers or runs it). */
    private static boolean knowsJob(DispatcherGateway dispatcher, JobId id) throws Exception {
        try {
            dispatcher.requestJobDetails(id).get(5, TimeUnit.SECONDS);
            return true;
        } catch (java.util.concurrent.ExecutionException e) {
            if (e.getCause() instanceof io.sluice.protocol.UnknownJobException) {
                return false;
            }
            throw e;
        }
    }

    private static void expectInitializing(JobDetails d) {
        if (d.status() != JobStatus.INITIALIZING || d.recovery() == null) {
            throw new IllegalStateException("Expected INITIALIZING with recovery progress while storage hangs, got "
                    + d.status() + " / " + d.recovery());
        }
    }

    static StartResult afterJobManagerStart(Settings s) throws Exception {
        Path dir = BenchSupport.tempDir("sluice-status-start");
        AtomicReference<FaultInjectingBlobStore> faults = new AtomicReference<>();
        // One slot per job (parallelism 1): every stored job can run at once.
        LocalCluster cluster = BenchSupport.cluster(dir, faults, 2, (s.storedJobs() + 1) / 2);
        try {
            List<JobId> ids = new ArrayList<>();
            for (int i = 0; i < s.storedJobs(); i++) {
                ids.add(cluster.submit(Jobs.countingJob("stored job " + i, dir.resolve("checkpoints"), 1, 200,
                        Duration.ofMillis(100), 1)));
            }
            DispatcherGateway first = cluster.dispatcher();
            for (JobId id : ids) {
                BenchSupport.await("a completed checkpoint of every job", Duration.ofSeconds(120),
                        () -> first.requestJobDetails(id).get(5, TimeUnit.SECONDS).checkpoints().completed() >= 1);
            }
            // The old job manager goes away; its jobs stay stored (job graphs, checkpoint pointers).
            cluster.stopJobManager(cluster.jobManagers().get(0));
            FaultInjectingBlobStore storage = faults.get();
            storage.setLatency(s.storageLatency());
            long callsBefore = storage.calls();

            long t0 = System.nanoTime();
            LocalCluster.JobManager jm = cluster.startJobManager();
            DispatcherGateway dispatcher = jm.dispatcher();
            // Asked at once: before it leads the dispatcher (and recovers the stored jobs), a job manager
            // with no other leader in sight answers INITIALIZING for ids it does not know yet.
            JobDetails firstAnswer = dispatcher.requestJobDetails(ids.get(0)).get();
            long firstQuery = System.nanoTime() - t0;

            long[] samples = new long[s.startQueries()];
            Map<JobStatus, Integer> statuses = new EnumMap<>(JobStatus.class);
            for (int i = 0; i < samples.length; i++) {
                JobId id = ids.get(i % ids.size());
                long q0 = System.nanoTime();
                JobDetails d = dispatcher.requestJobDetails(id).get();
                samples[i] = System.nanoTime() - q0;
                statuses.merge(d.status(), 1, Integer::sum);
            }
            long storageCalls = storage.calls() - callsBefore;
            BenchSupport.await("every stored job RUNNING on the new job manager", Duration.ofSeconds(120), () -> {
                for (JobId id : ids) {
                    if (dispatcher.requestJobDetails(id).get(5, TimeUnit.SECONDS).status() != JobStatus.RUNNING) {
                        return false;
                    }
                }
                return true;
            });
            long allRunning = System.nanoTime() - t0;
            storage.heal();
            return new StartResult(ids.size(), firstQuery, firstAnswer.status() + " (" + (firstAnswer.recovery() == null
                    ? "-" : firstAnswer.recovery().phase()) + ")", Stats.of(samples), samples.length, statuses,
                    allRunning, storageCalls);
        } finally {
            FaultInjectingBlobStore f = faults.get();
            if (f != null) {
                f.heal();
            }
            cluster.close();
            BenchSupport.deleteQuietly(dir);
        }
    }

    static void print(Result r, boolean smoke) {
        System.out.println("== StatusLatencyBenchmark" + (smoke ? " (SMOKE: tiny counts, figures meaningless)" : ""));
        System.out.println("machine: " + BenchSupport.machine());
        HungResult h = r.hung();
        System.out.println("(a) requestJobDetails(id).get() while the standby's recovery hangs on storage");
        System.out.println("    " + h.stats().describeMicros());
        System.out.println("    answers INITIALIZING: " + h.initializing() + "/" + h.queries() + ", phase: '" + h.phase()
                + "', storage calls blocked at the end: " + h.blockedCalls());
        System.out.println("    target p99 < 1 ms: " + verdict(h.stats().p99Nanos()));
        StartResult st = r.start();
        System.out.println("(b) from the first query after startJobManager(), " + st.storedJobs()
                + " stored jobs, checkpoint storage 50 ms per call");
        System.out.println("    first query (measured from startJobManager()): " + BenchSupport.millis(st.firstQueryNanos())
                + ", answer " + st.firstQueryStatus());
        System.out.println("    next " + st.queries() + " queries: " + st.stats().describeMicros());
        System.out.println("    statuses seen: " + st.statuses() + ", checkpoint storage calls meanwhile: "
                + st.storageCallsDuring() + ", all jobs RUNNING after " + BenchSupport.millis(st.allRunningNanos()));
        System.out.println("    target p99 < 1 ms: " + verdict(st.stats().p99Nanos()));
        System.out.println("comparison: Apache Flink 1.20.5 on this machine: p99 " + FLINK_FAILOVER_P99
                + " during task failovers, and about one storage read (here 50 ms) right after a job-manager start");
    }

    private static String verdict(long p99Nanos) {
        return p99Nanos < 1_000_000 ? "MET (" + BenchSupport.millis(p99Nanos) + ")" : "MISSED (" + BenchSupport.millis(p99Nanos) + ")";
    }
}
