package io.sluice.bench;

import io.sluice.bench.ThroughputBenchmark.Config;
import io.sluice.bench.ThroughputBenchmark.ConfigResult;
import io.sluice.bench.ThroughputBenchmark.Run;
import io.sluice.cluster.LocalCluster;
import io.sluice.config.SecurityOptions.TlsProvider;
import io.sluice.network.netty.NettyShuffleEnvironment;
import io.sluice.security.tls.InternalTls;
import io.sluice.testing.tls.TestCertificates;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Scenario harness: the two-task-manager throughput scenario of {@link NetworkThroughputBenchmark}
 * (the keyed counting job of {@link ThroughputBenchmark}, parallelism 2, 1024 keys, two task
 * executors of one slot each, the keyed channels between them over loopback TCP) with the data
 * connections in plain TCP, with mutual TLS through the JDK's SSLEngine, and with mutual TLS through
 * OpenSSL (BoringSSL from netty-tcnative), in one JVM. The certificates (EC P-256) are made at start
 * by {@link TestCertificates}. The target is TLS throughput at least {@value #TARGET_RATIO} of plain TCP.
 *
 * <p>All clusters start once; after a warm-up job on each, the measured runs go round them (plain,
 * JDK, OpenSSL, plain, ...), so a change in the machine's load hits each alike. Each run is a fresh
 * job measured by the keyed vertex's records-in counter over a wall-clock window, as in
 * {@link ThroughputBenchmark}. It prints every run, the medians, the ratios to plain TCP (wall time
 * and per CPU-second of the JVM), the spread of the runs, and the TLS handshakes each cluster made.
 *
 * <pre>
 * java -Xmx2g -cp ... io.sluice.bench.TlsNetworkThroughputBenchmark [--seconds 8] [--warmup-seconds 8] [--runs 5]
 *     [--smoke]
 * </pre>
 */
public final class TlsNetworkThroughputBenchmark {
    /** The target: TLS throughput at least this fraction of plain TCP (at most 15 % lower). */
    public static final double TARGET_RATIO = 0.85;

    private TlsNetworkThroughputBenchmark() {}

    /** The data connections of one cluster. */
    public enum Transport {
        PLAIN("plain TCP"), TLS_JDK("TLS, JDK"), TLS_OPENSSL("TLS, OpenSSL");

        private final String label;

        Transport(String label) {
            this.label = label;
        }

        public String label() {
            return label;
        }
    }

    /** The medians of each transport. */
    public record Result(Map<Transport, ConfigResult> results, Map<Transport, Long> handshakes) {
        /** Median records/s of {@code transport} over plain TCP's. */
        public double ratio(Transport transport) {
            return results.get(transport).median() / results.get(Transport.PLAIN).median();
        }

        public double ratioPerCpuSecond(Transport transport) {
            return results.get(transport).medianPerCpuSecond() / results.get(Transport.PLAIN).medianPerCpuSecond();
        }
    }

    public static void main(String[] args) throws Exception {
        run(parse(args), System.out);
        System.exit(0);
    }

    static NetworkThroughputBenchmark.Options parse(String[] args) {
        return NetworkThroughputBenchmark.parse(args);
    }

    public static Result run(NetworkThroughputBenchmark.Options options, PrintStream out) throws Exception {
        Config config = options.config();
        out.printf(Locale.ROOT, "Sluice keyed-counting throughput across 2 task executors x 1 slot, data connections plain"
                        + " vs mutual TLS: parallelism %d, %d keys, %s, %d cores, JVM %s, max heap %d MiB%n",
                ThroughputBenchmark.PARALLELISM, ThroughputBenchmark.KEYS, config.label(),
                Runtime.getRuntime().availableProcessors(), System.getProperty("java.vm.version"),
                Runtime.getRuntime().maxMemory() >> 20);
        out.printf(Locale.ROOT, "warm-up %.1f s per transport, then %d measured round(s) of %.1f s runs, interleaved%n",
                options.warmup().toMillis() / 1e3, options.measuredRuns(), options.window().toMillis() / 1e3);
        Path work = Files.createTempDirectory("sluice-bench-tls");
        TestCertificates.PemFiles files = TestCertificates.authority("Sluice benchmark CA").issue("bench", work.resolve("tls"));
        Map<Transport, InternalTls> tls = new LinkedHashMap<>();
        tls.put(Transport.PLAIN, null);
        tls.put(Transport.TLS_JDK, files.internalTls(TlsProvider.JDK));
        tls.put(Transport.TLS_OPENSSL, files.internalTls(TlsProvider.OPENSSL));
        Map<Transport, LocalCluster> clusters = new LinkedHashMap<>();
        Map<Transport, List<Run>> runs = new LinkedHashMap<>();
        Map<Transport, Long> handshakes = new LinkedHashMap<>();
        try {
            for (Map.Entry<Transport, InternalTls> e : tls.entrySet()) {
                clusters.put(e.getKey(), LocalCluster.builder().taskExecutors(2).slotsPerTaskExecutor(1)
                        .networkDataExchange(true).internalTls(e.getValue()).build());
                runs.put(e.getKey(), new ArrayList<>());
            }
            Path checkpoints = work.resolve("checkpoints");
            for (Transport t : Transport.values()) {
                print(out, t.label() + " warm-up", ThroughputBenchmark.measure(clusters.get(t), config, checkpoints, 0,
                        Duration.ZERO, options.warmup()));
            }
            for (int i = 1; i <= options.measuredRuns(); i++) {
                for (Transport t : Transport.values()) {
                    Run r = ThroughputBenchmark.measure(clusters.get(t), config, checkpoints, i, Duration.ofSeconds(1),
                            options.window());
                    runs.get(t).add(r);
                    print(out, t.label() + " run " + i, r);
                }
            }
            for (Transport t : Transport.values()) {
                InternalTls s = tls.get(t);
                handshakes.put(t, s == null ? 0L : s.handshakesCompleted());
                long sent = clusters.get(t).networkEnvironments().stream().map(NettyShuffleEnvironment::metrics)
                        .mapToLong(m -> m.bytesSent()).sum();
                out.printf(Locale.ROOT, "%-13s sent %,d MiB over TCP in all, %d TLS handshakes%n", t.label(), sent >> 20,
                        handshakes.get(t));
            }
        } finally {
            for (LocalCluster c : clusters.values()) {
                c.close();
            }
            ThroughputBenchmark.deleteRecursively(work);
        }
        Map<Transport, ConfigResult> results = new LinkedHashMap<>();
        runs.forEach((t, r) -> results.put(t, new ConfigResult(config, r)));
        Result result = new Result(results, handshakes);
        out.println();
        for (Transport t : Transport.values()) {
            ConfigResult r = results.get(t);
            out.printf(Locale.ROOT, "MEDIAN %-13s %,14.0f records/s %,14.0f rec/CPU-s   runs %s%n", t.label(), r.median(),
                    r.medianPerCpuSecond(), spread(r));
        }
        for (Transport t : List.of(Transport.TLS_JDK, Transport.TLS_OPENSSL)) {
            out.printf(Locale.ROOT, "RATIO %s / plain %.3f (target >= %.2f); per CPU-second %.3f%n", t.label(),
                    result.ratio(t), TARGET_RATIO, result.ratioPerCpuSecond(t));
        }
        out.flush();
        return result;
    }

    /** Lowest and highest valid run, in M records/s. */
    private static String spread(ConfigResult r) {
        double[] rates = r.runs().stream().filter(Run::valid).mapToDouble(Run::recordsPerSecond).sorted().toArray();
        return rates.length == 0 ? "none valid" : String.format(Locale.ROOT, "%.1f-%.1f M/s", rates[0] / 1e6,
                rates[rates.length - 1] / 1e6);
    }

    private static void print(PrintStream out, String label, Run r) {
        out.printf(Locale.ROOT, "   %-22s %,14.0f records/s  %,12.0f rec/CPU-s  (%,d records in %.2f s, %d checkpoints)%s%n",
                label, r.recordsPerSecond(), r.recordsPerCpuSecond(), r.records(), r.nanos() / 1e9, r.checkpointsCompleted(),
                r.valid() ? "" : "  INVALID: the job restarted, excluded");
        out.flush();
    }
}
