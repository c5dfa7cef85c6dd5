package io.sluice.bench.recovery;

import io.sluice.bench.recovery.BenchSupport.Stats;
import io.sluice.cluster.LocalCluster;
import io.sluice.config.JobManagerOptions;
import io.sluice.graph.JobId;
import io.sluice.job.JobStatus;
import io.sluice.jobmaster.RecoveryBackoff;
import io.sluice.protocol.DispatcherGateway;
import io.sluice.protocol.JobDetails;
import io.sluice.protocol.JobSummary;
import io.sluice.storage.FaultInjectingBlobStore;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.ToLongFunction;

/**
 * Status latency while many jobs recover at once after a job-manager restart (issue 22's case): {@code N}
 * small checkpointing jobs (parallelism 1, 10 records a second) run on one {@link LocalCluster} with
 * embedded HA; a standby job manager starts, checkpoint storage is made to take 200 ms per read
 * ({@link FaultInjectingBlobStore#setReadLatency}), the leader stops, and from the moment the standby
 * leads, one status call ({@code requestJobDetails(id).get()} from the calling thread, the jobs asked in
 * turn from the last submitted, which waits longest) and one list call are made every 2 ms until every
 * job is RUNNING again. {@code jobmanager.recovery.max-concurrent-reads} keeps its default.
 *
 * <p>Printed per round: status and list latency (p50/p99/max), time from the leader's stop until all
 * RUNNING, storage reads during recovery and the most in flight at once, and the time the read bound
 * implies: {@code ceil(reads / max-concurrent-reads) x read latency}. Then the medians over the rounds.
 *
 * <p>Run: {@code java -Xmx3g -cp <classpath> io.sluice.bench.recovery.ManyJobsRecoveryBenchmark
 * [--jobs 100,1000] [--rounds 3] [--smoke]}.
 */
public final class ManyJobsRecoveryBenchmark {
    private static final int TASK_EXECUTORS = 10;
    private static final Duration READ_LATENCY = Duration.ofMillis(200);
    private static final Duration QUERY_EVERY = Duration.ofMillis(2);
    /** How long one answer may take before the run fails (a slow answer is measured, not retried). */
    private static final Duration ANSWER_WAIT = Duration.ofSeconds(60);

    private ManyJobsRecoveryBenchmark() {}

    /** Job counts to measure and rounds per count; {@link #smoke()} is a tiny run for the smoke test. */
    record Options(List<Integer> jobCounts, int rounds) {
        static Options smoke() {
            return new Options(List.of(4), 1);
        }
    }

    /**
     * One recovery of {@code jobs} jobs. {@code allRunningNanos} counts from the old leader's stop, {@code
     * runningAfterLeadNanos} from the standby's lead: recovery (and its read bound) starts there; before it the
     * old leader, in the same JVM, closes its job masters, which a crashed process does not.
     */
    record Round(int jobs, int maxReads, Stats status, Stats list, long takeoverNanos, long allRunningNanos,
                 long runningAfterLeadNanos, long reads, int maxReadsInFlight, int queuedAnswers, long boundNanos,
                 List<Slow> slowest) {
    }

    /** One slow status answer: how long it took, when it was asked (after the standby led) and what it said. */
    record Slow(long nanos, long askedAfterNanos, String answer) {
        @Override
        public String toString() {
            return BenchSupport.millis(nanos) + " asked " + BenchSupport.millis(askedAfterNanos) + " after the lead: " + answer;
        }
    }

    public static void main(String[] args) throws Exception {
        BenchSupport.quietLogging();
        run(parse(args), System.out);
        System.exit(0);
    }

    static Options parse(String[] args) {
        List<Integer> jobs = List.of(100, 1_000);
        int rounds = 3;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--jobs" -> jobs = Arrays.stream(args[++i].split(",")).map(String::trim).map(Integer::valueOf).toList();
                case "--rounds" -> rounds = Integer.parseInt(args[++i]);
                case "--smoke" -> {
                    return Options.smoke();
                }
                default -> throw new IllegalArgumentException("Unknown argument '" + args[i]
                        + "'; use --jobs 100,1000, --rounds 3 or --smoke");
            }
        }
        return new Options(jobs, rounds);
    }

    static List<Round> run(Options options, PrintStream out) throws Exception {
        out.println("== ManyJobsRecoveryBenchmark: status while N jobs recover after a job-manager restart, "
                + READ_LATENCY.toMillis() + " ms per storage read");
        out.println("machine: " + BenchSupport.machine());
        List<Round> all = new ArrayList<>();
        for (int jobs : options.jobCounts()) {
            List<Round> rounds = new ArrayList<>();
            for (int r = 0; r < options.rounds(); r++) {
                Round round = recover(jobs);
                print(out, "round " + (r + 1), round);
                rounds.add(round);
            }
            printMedians(out, rounds);
            all.addAll(rounds);
        }
        return all;
    }

    static Round recover(int jobs) throws Exception {
        Path dir = BenchSupport.tempDir("sluice-many-jobs-recovery");
        AtomicReference<FaultInjectingBlobStore> faults = new AtomicReference<>();
        int maxReads = JobManagerOptions.RECOVERY_MAX_CONCURRENT_READS.defaultValue();
        LocalCluster cluster = LocalCluster.builder().haDirectory(dir.resolve("ha"))
                .taskExecutors(TASK_EXECUTORS).slotsPerTaskExecutor((jobs + TASK_EXECUTORS - 1) / TASK_EXECUTORS)
                .blobStoreDecorator(FaultInjectingBlobStore.capturingInto(faults))
                .recoveryBackoff(new RecoveryBackoff(Duration.ofMillis(20), Duration.ofMillis(200), 2.0, 0.2))
                .build();
        try {
            // Checkpoints of all jobs together at most about 200 a second, so a small machine keeps up.
            Duration interval = Duration.ofMillis(Math.max(500, jobs * 5L));
            List<JobId> ids = new ArrayList<>();
            for (int i = 0; i < jobs; i++) {
                ids.add(cluster.submit(Jobs.countingJob("recovering job " + i, dir.resolve("checkpoints"), 1, 10,
                        interval, 1)));
            }
            DispatcherGateway first = cluster.dispatcher();
            Duration wait = Duration.ofSeconds(180 + jobs / 2);
            // With 1,000 jobs on a small machine one status answer can take seconds (the jobs' tasks keep
            // the CPUs busy), so the list says when all run, and each job is asked once it does, until it
            // has a completed checkpoint.
            BenchSupport.await("every job RUNNING", wait, () -> first.listJobs().get(ANSWER_WAIT.toSeconds(),
                    TimeUnit.SECONDS).stream().filter(j -> j.status() == JobStatus.RUNNING).count() == jobs);
            Set<JobId> checkpointed = new HashSet<>();
            BenchSupport.await("every job with a completed checkpoint", wait, () -> {
                for (JobId id : ids) {
                    if (!checkpointed.contains(id) && first.requestJobDetails(id).get(ANSWER_WAIT.toSeconds(),
                            TimeUnit.SECONDS).checkpoints().completed() >= 1) {
                        checkpointed.add(id);
                    }
                }
                return checkpointed.size() == jobs;
            });

            LocalCluster.JobManager standby = cluster.startJobManager();
            BenchSupport.await("a dispatcher leader known", Duration.ofSeconds(10),
                    () -> cluster.haServices().dispatcherLeaderRetrieval().currentLeader().isPresent());
            FaultInjectingBlobStore storage = faults.get();
            storage.setReadLatency(READ_LATENCY);
            storage.resetMaxReadsInFlight();
            long readsBefore = storage.reads();
            long stoppedAt = System.nanoTime();
            cluster.stopJobManager(cluster.jobManagers().get(0));
            BenchSupport.await("the standby to lead", Duration.ofSeconds(30), () -> standby.dispatcher().isLeader());
            long takeover = System.nanoTime() - stoppedAt;

            DispatcherGateway dispatcher = standby.dispatcher();
            List<Long> status = new ArrayList<>();
            List<Long> list = new ArrayList<>();
            List<Slow> slow = new ArrayList<>();
            long ledAt = System.nanoTime();
            int queued = 0;
            int next = ids.size() - 1;
            long deadline = System.nanoTime() + wait.toNanos();
            while (true) {
                long t0 = System.nanoTime();
                JobDetails d = dispatcher.requestJobDetails(ids.get(next)).get(ANSWER_WAIT.toSeconds(), TimeUnit.SECONDS);
                long t1 = System.nanoTime();
                List<JobSummary> jobsNow = dispatcher.listJobs().get(ANSWER_WAIT.toSeconds(), TimeUnit.SECONDS);
                long t2 = System.nanoTime();
                status.add(t1 - t0);
                slow.add(new Slow(t1 - t0, t0 - ledAt, d.status() + (d.recovery() == null ? "" : " (" + d.recovery().phase() + ")")));
                list.add(t2 - t1);
                if (d.recovery() != null && d.recovery().phase().startsWith("queued for recovery: ")) {
                    queued++;
                }
                if (jobsNow.size() == ids.size() && jobsNow.stream().allMatch(j -> j.status() == JobStatus.RUNNING)) {
                    break;
                }
                if (t2 > deadline) {
                    throw new IllegalStateException("Not all " + jobs + " jobs RUNNING within " + wait.toSeconds()
                            + " s after the leader stopped");
                }
                next = next == 0 ? ids.size() - 1 : next - 1;
                LockSupport.parkNanos(Math.max(0, QUERY_EVERY.toNanos() - (System.nanoTime() - t0)));
            }
            long end = System.nanoTime();
            long allRunning = end - stoppedAt;
            long reads = storage.reads() - readsBefore;
            int maxInFlight = storage.maxReadsInFlight();
            storage.setReadLatency(Duration.ZERO);
            long bound = (reads + maxReads - 1) / maxReads * READ_LATENCY.toNanos();
            return new Round(jobs, maxReads, Stats.of(toArray(status)), Stats.of(toArray(list)), takeover, allRunning,
                    end - ledAt, reads, maxInFlight, queued, bound,
                    slow.stream().sorted((a, b) -> Long.compare(b.nanos(), a.nanos())).limit(3).toList());
        } finally {
            FaultInjectingBlobStore f = faults.get();
            if (f != null) {
                f.heal();
            }
            cluster.close();
            BenchSupport.deleteQuietly(dir);
        }
    }

    private static long[] toArray(List<Long> samples) {
        return samples.stream().mapToLong(Long::longValue).toArray();
    }

    private static void print(PrintStream out, String label, Round r) {
        out.printf(Locale.ROOT, "%-9s %4d jobs: status %s | list p50 %s p99 %s max %s | standby leads after %s,"
                        + " all RUNNING after %s (%s after the lead; read bound %s, +1 s target %s) | reads %d,"
                        + " most in flight %d of %d,"
                        + " answers saying 'queued' %d%n",
                label, r.jobs(), r.status().describeMicros(), BenchSupport.millis(r.list().p50Nanos()),
                BenchSupport.millis(r.list().p99Nanos()), BenchSupport.millis(r.list().maxNanos()),
                BenchSupport.millis(r.takeoverNanos()), BenchSupport.millis(r.allRunningNanos()),
                BenchSupport.millis(r.runningAfterLeadNanos()), BenchSupport.millis(r.boundNanos()),
                r.runningAfterLeadNanos() <= r.boundNanos() + 1_000_000_000L ? "MET" : "MISSED",
                r.reads(), r.maxReadsInFlight(), r.maxReads(), r.queuedAnswers());
        out.println("          slowest status answers: " + r.slowest());
    }

    private static void printMedians(PrintStream out, List<Round> rounds) {
        Round first = rounds.get(0);
        out.printf(Locale.ROOT, "MEDIAN %5d jobs over %d round(s): status p50 %s p99 %s max %s; all RUNNING after %s"
                        + " (%s after the lead; read bound %s); status targets at 1,000 jobs p99 <= 5 ms %s, max <= 50 ms %s%n",
                first.jobs(), rounds.size(), BenchSupport.millis(median(rounds, r -> r.status().p50Nanos())),
                BenchSupport.millis(median(rounds, r -> r.status().p99Nanos())),
                BenchSupport.millis(median(rounds, r -> r.status().maxNanos())),
                BenchSupport.millis(median(rounds, Round::allRunningNanos)),
                BenchSupport.millis(median(rounds, Round::runningAfterLeadNanos)),
                BenchSupport.millis(median(rounds, Round::boundNanos)),
                median(rounds, r -> r.status().p99Nanos()) <= 5_000_000 ? "MET" : "MISSED",
                median(rounds, r -> r.status().maxNanos()) <= 50_000_000 ? "MET" : "MISSED");
    }

    private static long median(List<Round> rounds, ToLongFunction<Round> figure) {
        return BenchSupport.median(rounds.stream().mapToLong(figure).toArray());
    }
}
