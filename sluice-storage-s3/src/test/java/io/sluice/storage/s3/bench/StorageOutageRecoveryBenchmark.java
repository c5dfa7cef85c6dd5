package io.sluice.storage.s3.bench;

import io.sluice.api.StreamExecutionEnvironment;
import io.sluice.api.tuple.Tuple2;
import io.sluice.api.sink.CollectingSink;
import io.sluice.api.source.SequenceSource;
import io.sluice.cluster.LocalCluster;
import io.sluice.config.Configuration;
import io.sluice.examples.InjectedFailures;
import io.sluice.examples.KeyedCountingJob;
import io.sluice.graph.JobId;
import io.sluice.protocol.JobDetails;
import io.sluice.job.JobStatus;
import io.sluice.storage.FaultInjectingBlobStore;
import io.sluice.storage.s3.S3ProxyServer;
import io.sluice.storage.s3.testing.TcpFaultProxy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * How soon a job manager whose recovery waits on checkpoint storage reaches RUNNING once storage
 * is healthy again, and how hard it hits storage meanwhile, with the default recovery backoff and
 * the default {@code s3.*} client timeouts. Not part of the test run; the command is in
 * {@code docs/benchmarks.md}. Prints a markdown table.
 *
 * <p>Per round: a keyed counting job runs with checkpoints (embedded HA in a temp dir) until two
 * checkpoints completed; then storage breaks (refuses connections, or hangs: accepts but answers
 * nothing), a standby job manager takes over (the leader stops) and retries its recovery against
 * the broken storage for a random 4-8 s (seeded; the seed is printed), then storage heals. Measured:
 * the time from the heal to the job's RUNNING transition on the standby, and during the outage (from
 * its third second on, once the backoff reached its cap) the blob-store requests the job manager issued per second (every {@code BlobStore} call, which for S3
 * is one SDK call with up to {@code s3.max-retries} retries) and, for S3, the TCP connections the
 * proxy accepted per second. Modes: local disk (faults from {@link FaultInjectingBlobStore}) and S3
 * (S3Proxy in this JVM behind a {@link TcpFaultProxy}).
 *
 * <p>Arguments: rounds per mode (default 7), seed (default: the clock).
 */
public final class StorageOutageRecoveryBenchmark {
    private static final int KEYS = 8;

    private enum Mode { LOCAL_REFUSE, LOCAL_HANG, S3_REFUSE, S3_STALL }

    private record Round(long healToRunningMillis, double requestsPerSecond, double connectionsPerSecond) {
    }

    public static void main(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 7;
        long seed = args.length > 1 ? Long.parseLong(args[1]) : System.currentTimeMillis();
        Random random = new Random(seed);
        System.err.println("seed " + seed);
        StringBuilder out = new StringBuilder();
        out.append("| storage fault during JM recovery | rounds | heal → RUNNING median | min | max |"
                + " storage requests/s during outage, after its first 2 s (median) | TCP connections/s (median) |\n");
        out.append("|---|---|---|---|---|---|---|\n");
        try (S3ProxyServer server = S3ProxyServer.start("bench")) {
            for (Mode mode : Mode.values()) {
                List<Round> results = new ArrayList<>();
                for (int i = 0; i < rounds; i++) {
                    Duration outage = Duration.ofMillis(4_000 + random.nextInt(4_000));
                    Round r = runOnce(server, mode, outage);
                    System.err.printf("%s round %d: outage %d ms, heal -> RUNNING %d ms, %.2f requests/s, %.2f connections/s%n",
                            mode, i, outage.toMillis(), r.healToRunningMillis(), r.requestsPerSecond(), r.connectionsPerSecond());
                    results.add(r);
                }
                List<Long> times = new ArrayList<>(results.stream().map(Round::healToRunningMillis).toList());
                List<Double> rates = new ArrayList<>(results.stream().map(Round::requestsPerSecond).toList());
                List<Double> conns = new ArrayList<>(results.stream().map(Round::connectionsPerSecond).toList());
                Collections.sort(times);
                Collections.sort(rates);
                Collections.sort(conns);
                boolean s3 = mode == Mode.S3_REFUSE || mode == Mode.S3_STALL;
                out.append(String.format(java.util.Locale.ROOT, "| %s | %d | %d ms | %d ms | %d ms | %.2f | %s |%n",
                        mode.name().toLowerCase(java.util.Locale.ROOT).replace('_', ' '), rounds, times.get(times.size() / 2),
                        times.get(0), times.get(times.size() - 1), rates.get(rates.size() / 2),
                        s3 ? String.format(java.util.Locale.ROOT, "%.2f", conns.get(conns.size() / 2)) : "—"));
            }
        }
        System.out.print(out);
    }

    private static Round runOnce(S3ProxyServer server, Mode mode, Duration outage) throws Exception {
        Path ha = Files.createTempDirectory("sluice-outage-bench-ha");
        Path local = Files.createTempDirectory("sluice-outage-bench-checkpoints");
        boolean s3 = mode == Mode.S3_REFUSE || mode == Mode.S3_STALL;
        AtomicReference<FaultInjectingBlobStore> store = new AtomicReference<>();
        CollectingSink<Tuple2<Long, Long>> sink = CollectingSink.create();
        try (TcpFaultProxy proxy = new TcpFaultProxy("127.0.0.1", server.port());
             LocalCluster cluster = LocalCluster.builder().haDirectory(ha)
                     .configuration(s3 ? S3ProxyServer.clientConfiguration(proxy.httpEndpoint()) : new Configuration())
                     .blobStoreDecorator(FaultInjectingBlobStore.capturingInto(store))
                     .build()) {
            StreamExecutionEnvironment env = StreamExecutionEnvironment.create().setParallelism(2)
                    .enableCheckpointing(Duration.ofMillis(200))
                    .setCheckpointDir(s3 ? "s3://bench/outage-" + System.nanoTime() : local.toString());
            KeyedCountingJob.build(env, SequenceSource.bounded(0, Long.MAX_VALUE - 1).withRate(5_000), KEYS,
                    InjectedFailures.none(), sink);
            JobId id = cluster.submit(env.buildJobGraph("outage benchmark"));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (cluster.dispatcher().requestJobDetails(id).get(5, TimeUnit.SECONDS).checkpoints().completed() < 2) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("no checkpoints within 60 s");
                }
                Thread.sleep(20);
            }
            LocalCluster.JobManager standby = cluster.startJobManager();
            switch (mode) {
                case LOCAL_REFUSE -> store.get().refuseConnections();
                case LOCAL_HANG -> store.get().hang();
                case S3_REFUSE -> proxy.refuseConnections();
                case S3_STALL -> proxy.stall();
            }
            cluster.stopJobManager(cluster.jobManagers().get(0));
            // The outage is measured from here: the standby recovers (and retries) against broken storage.
            // Rates are taken after the first 2 s, once the backoff reached its cap (the first attempts
            // come 100, 200, 400, 800 ms apart): the steady state of a long outage.
            Thread.sleep(2_000);
            long calls0 = store.get().calls();
            long conns0 = proxy.acceptedConnections();
            long start = System.nanoTime();
            Thread.sleep(outage.toMillis() - 2_000);
            double seconds = (System.nanoTime() - start) / 1e9;
            double requests = (store.get().calls() - calls0) / seconds;
            double connections = (proxy.acceptedConnections() - conns0) / seconds;
            long healAt = System.currentTimeMillis();
            store.get().heal();
            proxy.heal();
            JobDetails d;
            deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
            while ((d = standby.dispatcher().requestJobDetails(id).get(5, TimeUnit.SECONDS)).status() != JobStatus.RUNNING) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException(mode + ": not RUNNING 120 s after the heal: " + d.status() + " " + d.recovery());
                }
                Thread.sleep(2);
            }
            long runningAt = d.transitionTime(JobStatus.RUNNING);
            standby.dispatcher().cancelJob(id).get(10, TimeUnit.SECONDS);
            standby.dispatcher().requestJobResult(id).get(60, TimeUnit.SECONDS);
            return new Round(runningAt - healAt, requests, connections);
        } finally {
            sink.release();
        }
    }
}
