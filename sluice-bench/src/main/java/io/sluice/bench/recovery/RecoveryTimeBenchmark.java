package io.sluice.bench.recovery;

import io.sluice.checkpoint.CheckpointStorage;
import io.sluice.checkpoint.CompletedCheckpoint;
import io.sluice.config.Configuration;
import io.sluice.config.StateBackendType;
import io.sluice.cluster.LocalCluster;
import io.sluice.protocol.DispatcherGateway;
import io.sluice.graph.JobId;
import io.sluice.protocol.JobDetails;
import io.sluice.job.JobStatus;
import io.sluice.storage.BlobNotFoundException;
import io.sluice.storage.FaultInjectingBlobStore;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

/**
 * Time from leadership grant to RUNNING on a standby job manager, with N in {1, 10, 50} retained
 * checkpoints, while checkpoint storage takes 50 ms per call. The job runs until N checkpoints
 * completed (5 ms interval), a standby starts, the latency is switched on, and the leader stops.
 * A tight poll of the standby's status (about every 50 us) sees the grant (recovery attempt 1
 * begins) and then RUNNING; the runner's own measure of grant to job-master start
 * ({@code RecoveryStatus.elapsedMillis}) is reported alongside.
 *
 * <p>{@code --backend heap} (the default) runs the keyed counting job on the heap backend;
 * {@code --backend rocksdb} runs it on RocksDB with incremental checkpoints, 8,000 keys with a 192-byte
 * value each and 16 kb table files ({@code state.backend.rocksdb.compaction.target-file-size}), so
 * that the retained checkpoints share hundreds of files (the registry size is printed per run).
 *
 * <p>Run: {@code java -Xmx2g -cp <classpath> io.sluice.bench.recovery.RecoveryTimeBenchmark
 * [--backend heap|rocksdb] [--smoke]}.
 */
public final class RecoveryTimeBenchmark {
    private RecoveryTimeBenchmark() {}

    record Settings(int runs, List<Integer> retained, Duration storageLatency, StateBackendType backend) {
        static Settings full(StateBackendType backend) {
            return new Settings(5, List.of(1, 10, 50), Duration.ofMillis(50), backend);
        }

        static Settings smoke(StateBackendType backend) {
            return new Settings(1, List.of(1, 3), Duration.ofMillis(50), backend);
        }

        int fewest() {
            return retained.get(0);
        }

        int most() {
            return retained.get(retained.size() - 1);
        }
    }

    /**
     * One failover to a standby; {@code registryFiles}: the shared files the latest checkpoint's registry names
     * (read after the measurement; 0 on the heap backend).
     */
    record Run(int retained, long grantToRunningNanos, long recoveryElapsedMillis, long metadataReads, int pointersFound,
               int metadataLoaded, int registryFiles) {
    }

    /** The runs per number of retained checkpoints, in the order of {@link Settings#retained}. */
    record Result(Settings settings, Map<Integer, List<Run>> runs) {
        List<Run> runs(int retained) {
            return runs.get(retained);
        }

        long median(int retained) {
            return BenchSupport.median(runs(retained).stream().mapToLong(Run::grantToRunningNanos).toArray());
        }
    }

    public static void main(String[] args) throws Exception {
        BenchSupport.quietLogging();
        boolean smoke = BenchSupport.smoke(args);
        StateBackendType backend = backend(args);
        Result r = run(smoke ? Settings.smoke(backend) : Settings.full(backend));
        print(r, smoke);
        System.exit(0);
    }

    /** {@code --backend heap|rocksdb}; heap when absent. */
    static StateBackendType backend(String[] args) {
        List<String> list = List.of(args);
        int i = list.indexOf("--backend");
        if (i < 0) {
            return StateBackendType.HEAP;
        }
        if (i + 1 >= list.size()) {
            throw new IllegalArgumentException("--backend needs a value: heap or rocksdb");
        }
        return switch (list.get(i + 1).toLowerCase(Locale.ROOT)) {
            case "heap" -> StateBackendType.HEAP;
            case "rocksdb" -> StateBackendType.ROCKSDB;
            default -> throw new IllegalArgumentException("--backend " + list.get(i + 1)
                    + " is not a state backend; use heap or rocksdb");
        };
    }

    static Result run(Settings s) throws Exception {
        Map<Integer, List<Run>> runs = new LinkedHashMap<>();
        s.retained().forEach(n -> runs.put(n, new ArrayList<>()));
        // Interleaved, so that slow phases of the shared machine hit every series alike.
        for (int i = 0; i < s.runs(); i++) {
            for (int n : s.retained()) {
                runs.get(n).add(failover(n, s.storageLatency(), s.backend()));
            }
        }
        return new Result(s, runs);
    }

    static Run failover(int retained, Duration latency, StateBackendType backend) throws Exception {
        Path dir = BenchSupport.tempDir("sluice-recovery-time");
        AtomicReference<FaultInjectingBlobStore> faults = new AtomicReference<>();
        boolean rocksDb = backend == StateBackendType.ROCKSDB;
        LocalCluster cluster = rocksDb
                ? BenchSupport.cluster(dir, faults, 2, 2, new Configuration()
                        .setString("state.backend.rocksdb.compaction.target-file-size", "16 kb")
                        .setString("state.backend.rocksdb.local-dir", dir.resolve("rocksdb").toString()))
                : BenchSupport.cluster(dir, faults, 2, 2);
        try {
            Path checkpoints = dir.resolve("checkpoints");
            String name = "recovery time, " + retained + " retained";
            JobId id = cluster.submit(rocksDb
                    ? Jobs.paddedCountingJob(name, checkpoints, 2, 20_000, Duration.ofMillis(5), retained)
                    : Jobs.countingJob(name, checkpoints, 2, 20_000, Duration.ofMillis(5), retained));
            DispatcherGateway first = cluster.dispatcher();
            // On RocksDB 20 checkpoints more, so that every key has its value (0.4 s at 20,000 records/s) and
            // compactions have written the state into many table files, which the retained checkpoints share.
            int completed = rocksDb ? retained + 20 : retained;
            BenchSupport.await(completed + " completed checkpoints", Duration.ofSeconds(120),
                    () -> first.requestJobDetails(id).get(5, TimeUnit.SECONDS).checkpoints().completed() >= completed);
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
            f.heal();
            return new Run(retained, running - granted, d.recovery().elapsedMillis(), reads,
                    d.recovery().pointersFound(), d.recovery().metadataLoaded(), rocksDb ? registryFiles(storage, id) : 0);
        } finally {
            FaultInjectingBlobStore f = faults.get();
            if (f != null) {
                f.heal();
            }
            cluster.close();
            BenchSupport.deleteQuietly(dir);
        }
    }

    /** The shared files named by the registry in the latest checkpoint's metadata (read after the measurement). */
    private static int registryFiles(CheckpointStorage storage, JobId id) {
        // The job still runs: the latest checkpoint listed may be subsumed and deleted before it is read.
        for (int attempt = 0; ; attempt++) {
            List<Long> ids = storage.listCheckpointIds(id);
            if (ids.isEmpty()) {
                return 0;
            }
            try {
                CompletedCheckpoint latest = storage.readMetadata(storage.metadataPath(id, ids.get(ids.size() - 1)));
                return latest.sharedFileReferences().size();
            } catch (BlobNotFoundException deleted) {
                if (attempt == 5) {
                    throw deleted;
                }
            }
        }
    }

    static void print(Result r, boolean smoke) {
        Settings s = r.settings();
        long lat = s.storageLatency().toMillis();
        System.out.println("== RecoveryTimeBenchmark" + (smoke ? " (SMOKE: tiny counts, figures meaningless)" : ""));
        System.out.println("machine: " + BenchSupport.machine());
        System.out.println("backend: " + s.backend().name().toLowerCase(Locale.ROOT)
                + (s.backend() == StateBackendType.ROCKSDB ? " (incremental checkpoints, 16 kb table files)" : ""));
        System.out.println("grant -> RUNNING on a standby, checkpoint storage " + lat + " ms per call, " + s.runs()
                + " run(s) each");
        for (int n : s.retained()) {
            for (Run run : r.runs(n)) {
                System.out.println(String.format(Locale.ROOT,
                        "  N=%-3d grant->RUNNING %s  (runner: grant->job master %d ms)  pointers found %d, metadata"
                                + " loaded %d, metadata reads since grant %d%s",
                        run.retained(), BenchSupport.millis(run.grantToRunningNanos()), run.recoveryElapsedMillis(),
                        run.pointersFound(), run.metadataLoaded(), run.metadataReads(),
                        s.backend() == StateBackendType.ROCKSDB ? ", shared files in the registry "
                                + run.registryFiles() : ""));
            }
        }
        StringBuilder medians = new StringBuilder();
        for (int n : s.retained()) {
            medians.append(String.format(Locale.ROOT, "median N=%d: %s   ", n, BenchSupport.millis(r.median(n))));
        }
        System.out.println(medians + String.format(Locale.ROOT, "ratio N=%d/N=%d: %.2f", s.most(), s.fewest(),
                r.median(s.most()) / (double) r.median(s.fewest())));
        System.out.println(String.format(Locale.ROOT,
                "comparison: Flink reads every retained checkpoint in sequence: N x latency = %d x %d ms = %d ms for"
                        + " N=%d (vs %d ms for N=%d), ratio %.0f", s.most(), lat, s.most() * lat,
                s.most(), s.fewest() * lat, s.fewest(), s.most() / (double) s.fewest()));
    }
}
