package io.sluice.bench.recovery;

import io.sluice.checkpoint.CheckpointStorage;
import io.sluice.cluster.LocalCluster;
import io.sluice.protocol.DispatcherGateway;
import io.sluice.graph.JobId;
import io.sluice.protocol.JobDetails;
import io.sluice.job.JobStatus;
import io.sluice.storage.FaultInjectingBlobStore;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

/**
 * Time from leadership grant to RUNNING on a standby job manager, with 1 vs N retained
 * checkpoints, while checkpoint storage takes 50 ms per call. The job runs until N checkpoints
 * completed (5 ms interval), a standby starts, the latency is switched on, and the leader stops.
 * A tight poll of the standby's status (about every 50 us) sees the grant (recovery attempt 1
 * begins) and then RUNNING; the runner's own measure of grant to job-master start
 * ({@code RecoveryStatus.elapsedMillis}) is reported alongside.
 *
 * <p>Run: {@code java -Xmx2g -cp <classpath> io.sluice.bench.recovery.RecoveryTimeBenchmark [--smoke]}.
 */
public final class RecoveryTimeBenchmark {
    private RecoveryTimeBenchmark() {}

    record Settings(int runs, int fewRetained, int manyRetained, Duration storageLatency) {
        static Settings full() {
            return new Settings(5, 1, 50, Duration.ofMillis(50));
        }

        static Settings smoke() {
            return new Settings(1, 1, 3, Duration.ofMillis(50));
        }
    }

    /** One failover to a standby. */
    record Run(int retained, long grantToRunningNanos, long recoveryElapsedMillis, long metadataReads, int pointersFound,
               int metadataLoaded) {
    }

    record Result(Settings settings, List<Run> few, List<Run> many) {
        long medianFew() {
            return BenchSupport.median(few.stream().mapToLong(Run::grantToRunningNanos).toArray());
        }

        long medianMany() {
            return BenchSupport.median(many.stream().mapToLong(Run::grantToRunningNanos).toArray());
        }
    }

    public static void main(String[] args) throws Exception {
        BenchSupport.quietLogging();
        boolean smoke = BenchSupport.smoke(args);
        Result r = run(smoke ? Settings.smoke() : Settings.full());
        print(r, smoke);
        System.exit(0);
    }

    static Result run(Settings s) throws Exception {
        List<Run> few = new ArrayList<>();
        List<Run> many = new ArrayList<>();
        // Interleaved, so that slow phases of the shared machine hit both series alike.
        for (int i = 0; i < s.runs(); i++) {
            few.add(failover(s.fewRetained(), s.storageLatency()));
            many.add(failover(s.manyRetained(), s.storageLatency()));
        }
        return new Result(s, few, many);
    }

    static Run failover(int retained, Duration latency) throws Exception {
        Path dir = BenchSupport.tempDir("sluice-recovery-time");
        AtomicReference<FaultInjectingBlobStore> faults = new AtomicReference<>();
        LocalCluster cluster = BenchSupport.cluster(dir, faults, 2, 2);
        try {
            Path checkpoints = dir.resolve("checkpoints");
            JobId id = cluster.submit(Jobs.countingJob("recovery time, " + retained + " retained", checkpoints, 2,
                    20_000, Duration.ofMillis(5), retained));
            DispatcherGateway first = cluster.dispatcher();
            BenchSupport.await(retained + " completed checkpoints", Duration.ofSeconds(120),
                    () -> first.requestJobDetails(id).get(5, TimeUnit.SECONDS).checkpoints().completed() >= retained);
            LocalCluster.JobManager standby = cluster.startJobManager();
            DispatcherGateway dispatcher = standby.dispatcher();
            // A standby recovers the job only once it leads the dispatcher (after the leader stops).
            CheckpointStorage storage = cluster.checkpointStorages().forLocation(checkpoints.toString());

            FaultInjectingBlobStore f = faults.get();
            f.setLatency(latency);
            LocalCluster.JobManager leader = cluster.jobManagers().get(0);
            CompletableFuture<Void> stopped = CompletableFuture.runAsync(() -> {
                try {
                    cluster.stopJobManager(leader);
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            // The old leader's last checkpoint may still be writing; count reads from the grant on.
            long granted = 0;
            long readsAtGrant = 0;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
            JobDetails d;
            while (true) {
                if (!standby.dispatcher().isLeader()) { // it knows the job once it leads the dispatcher
                    if (System.nanoTime() > deadline) {
                        throw new IllegalStateException("The standby did not take over the dispatcher leadership");
                    }
                    LockSupport.parkNanos(50_000);
                    continue;
                }
                long before = System.nanoTime();
                long reads = storage.metadataReads();
                d = dispatcher.requestJobDetails(id).get(5, TimeUnit.SECONDS);
                if (granted == 0 && (d.status() != JobStatus.INITIALIZING
                        || (d.recovery() != null && d.recovery().attempt() >= 1))) {
                    granted = before; // the grant happened before this query was sent, at the earliest
                    readsAtGrant = reads;
                }
                if (d.status() == JobStatus.RUNNING) {
                    break;
                }
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("The standby did not run the job: " + d);
                }
                LockSupport.parkNanos(50_000);
            }
            long running = System.nanoTime();
            long reads = storage.metadataReads() - readsAtGrant;
            stopped.get(60, TimeUnit.SECONDS);
            return new Run(retained, running - granted, d.recovery().elapsedMillis(), reads,
                    d.recovery().pointersFound(), d.recovery().metadataLoaded());
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
        Settings s = r.settings();
        long lat = s.storageLatency().toMillis();
        System.out.println("== RecoveryTimeBenchmark" + (smoke ? " (SMOKE: tiny counts, figures meaningless)" : ""));
        System.out.println("machine: " + BenchSupport.machine());
        System.out.println("grant -> RUNNING on a standby, checkpoint storage " + lat + " ms per call, " + s.runs()
                + " run(s) each");
        for (List<Run> runs : List.of(r.few(), r.many())) {
            for (Run run : runs) {
                System.out.println(String.format(Locale.ROOT,
                        "  N=%-3d grant->RUNNING %s  (runner: grant->job master %d ms)  pointers found %d, metadata"
                                + " loaded %d, metadata reads since grant %d",
                        run.retained(), BenchSupport.millis(run.grantToRunningNanos()), run.recoveryElapsedMillis(),
                        run.pointersFound(), run.metadataLoaded(), run.metadataReads()));
            }
        }
        long few = r.medianFew();
        long many = r.medianMany();
        System.out.println(String.format(Locale.ROOT, "median N=%d: %s   median N=%d: %s   ratio N=%d/N=%d: %.2f",
                s.fewRetained(), BenchSupport.millis(few), s.manyRetained(), BenchSupport.millis(many),
                s.manyRetained(), s.fewRetained(), many / (double) few));
        System.out.println(String.format(Locale.ROOT,
                "comparison: Flink reads every retained checkpoint in sequence: N x latency = %d x %d ms = %d ms for"
                        + " N=%d (vs %d ms for N=%d), ratio %.0f", s.manyRetained(), lat, s.manyRetained() * lat,
                s.manyRetained(), s.fewRetained() * lat, s.fewRetained(), s.manyRetained() / (double) s.fewRetained()));
    }
}
