package io.sluice.storage.s3.bench;

import io.sluice.api.StreamExecutionEnvironment;
import io.sluice.api.tuple.Tuple2;
import io.sluice.api.sink.CollectingSink;
import io.sluice.api.source.SequenceSource;
import io.sluice.checkpoint.CheckpointStats;
import io.sluice.cluster.LocalCluster;
import io.sluice.config.RestartStrategyConfig;
import io.sluice.protocol.DispatcherGateway;
import io.sluice.examples.InjectedFailures;
import io.sluice.examples.KeyedCountingJob;
import io.sluice.graph.JobId;
import io.sluice.protocol.JobDetails;
import io.sluice.job.JobStatus;
import io.sluice.storage.s3.S3ProxyServer;
import io.sluice.storage.s3.testing.TcpFaultProxy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

/**
 * Checkpoint duration and job-manager failover recovery time with checkpoints on S3 (S3Proxy in
 * this JVM) behind a {@link TcpFaultProxy} adding 0, 20 and 100 ms per forwarded chunk. Not part of
 * the test run; the command is in {@code docs/benchmarks-s3.md}. Prints a markdown table.
 *
 * <p>Per latency: a keyed counting job (parallelism 2, 8 keys, 20,000 records/s, checkpoint every
 * 200 ms) runs for {@code seconds} (default 6) while every completed checkpoint's duration is sampled;
 * then a standby job manager is started and the leader stopped, and the time until the job runs
 * again on the standby (recovering the latest checkpoint's metadata from S3) is measured. Repeated
 * {@code rounds} times (default 3).
 */
public final class S3CheckpointBenchmark {
    private static final int KEYS = 8;

    public static void main(String[] args) throws Exception {
        int seconds = args.length > 0 ? Integer.parseInt(args[0]) : 6;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 3;
        StringBuilder out = new StringBuilder();
        out.append("| added latency | checkpoints | checkpoint duration p50 | p90 | max | JM failover: stop → RUNNING (median of ")
                .append(rounds).append(") | of which recovery (metadata from S3) |\n");
        out.append("|---|---|---|---|---|---|---|\n");
        try (S3ProxyServer server = S3ProxyServer.start("bench")) {
            for (int latency : new int[] {0, 20, 100}) {
                List<Long> durations = new ArrayList<>();
                List<Long> recoveries = new ArrayList<>();
                List<Long> recoveryPhase = new ArrayList<>();
                for (int round = 0; round < rounds; round++) {
                    runOnce(server, latency, seconds, durations, recoveries, recoveryPhase);
                }
                Collections.sort(durations);
                Collections.sort(recoveries);
                Collections.sort(recoveryPhase);
                out.append(String.format("| %d ms | %d | %d ms | %d ms | %d ms | %d ms | %d ms |%n", latency,
                        durations.size(), pct(durations, 50), pct(durations, 90), pct(durations, 100),
                        pct(recoveries, 50), pct(recoveryPhase, 50)));
                System.err.printf("latency %d ms done: %d checkpoints, recoveries %s ms%n", latency, durations.size(),
                        recoveries);
            }
        }
        System.out.print(out);
    }

    private static void runOnce(S3ProxyServer server, int latencyMs, int seconds, List<Long> durations,
            List<Long> recoveries, List<Long> recoveryPhase) throws Exception {
        Path ha = Files.createTempDirectory("sluice-s3-bench-ha");
        CollectingSink<Tuple2<Long, Long>> sink = CollectingSink.create();
        try (TcpFaultProxy proxy = new TcpFaultProxy("127.0.0.1", server.port());
             LocalCluster cluster = LocalCluster.builder().haDirectory(ha)
                     .configuration(S3ProxyServer.clientConfiguration(proxy.httpEndpoint())
                             .set(io.sluice.storage.s3.S3Options.API_CALL_ATTEMPT_TIMEOUT, Duration.ofSeconds(10))
                             .set(io.sluice.storage.s3.S3Options.SOCKET_TIMEOUT, Duration.ofSeconds(10))
                             .set(io.sluice.storage.s3.S3Options.API_CALL_TIMEOUT, Duration.ofSeconds(30)))
                     .build()) {
            proxy.setLatency(Duration.ofMillis(latencyMs));
            StreamExecutionEnvironment env = StreamExecutionEnvironment.create().setParallelism(2)
                    .enableCheckpointing(Duration.ofMillis(200))
                    .setCheckpointTimeout(Duration.ofSeconds(30))
                    .setCheckpointDir("s3://bench/checkpoints")
                    .setRestartStrategy(new RestartStrategyConfig.FixedDelay(10, Duration.ofMillis(10)));
            KeyedCountingJob.build(env, SequenceSource.bounded(0, Long.MAX_VALUE - 1).withRate(20_000), KEYS,
                    InjectedFailures.none(), sink);
            JobId id = cluster.submit(env.buildJobGraph("s3 benchmark"));
            DispatcherGateway leader = cluster.dispatcher();
            Map<Long, Long> byId = new TreeMap<>();
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
            while (System.nanoTime() < end) {
                CheckpointStats s = leader.requestJobDetails(id).get(5, TimeUnit.SECONDS).checkpoints();
                if (s.latestCompletedId() > 0) {
                    byId.putIfAbsent(s.latestCompletedId(), s.latestDurationMillis());
                }
                Thread.sleep(20);
            }
            durations.addAll(byId.values());

            LocalCluster.JobManager standby = cluster.startJobManager();
            // A standby recovers the job only once it leads the dispatcher (after the leader stops).
            long stopAt = System.currentTimeMillis();
            cluster.stopJobManager(cluster.jobManagers().get(0));
            JobDetails d;
            while ((d = standby.dispatcher().requestJobDetails(id).get(5, TimeUnit.SECONDS)).status() != JobStatus.RUNNING) {
                Thread.sleep(2);
            }
            recoveries.add(d.transitionTime(JobStatus.RUNNING) - stopAt);
            recoveryPhase.add(d.recovery() == null ? -1 : d.recovery().elapsedMillis());
            standby.dispatcher().cancelJob(id).get(10, TimeUnit.SECONDS);
            standby.dispatcher().requestJobResult(id).get(30, TimeUnit.SECONDS);
        } finally {
            sink.release();
        }
    }

    private static long pct(List<Long> sorted, int p) {
        if (sorted.isEmpty()) {
            return -1;
        }
        int i = (int) Math.ceil(p / 100.0 * sorted.size()) - 1;
        return sorted.get(Math.max(0, Math.min(sorted.size() - 1, i)));
    }
}
