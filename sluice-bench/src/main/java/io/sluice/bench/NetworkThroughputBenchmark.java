package io.sluice.bench;

import io.sluice.bench.ThroughputBenchmark.Config;
import io.sluice.bench.ThroughputBenchmark.ConfigResult;
import io.sluice.bench.ThroughputBenchmark.Run;
import io.sluice.cluster.LocalCluster;
import io.sluice.network.netty.DataExchangeMetrics;
import io.sluice.network.netty.NettyShuffleEnvironment;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Scenario harness: the keyed counting job of {@link ThroughputBenchmark} (parallelism 2, 1024 keys,
 * two task executors with one slot each) with the data exchange in memory versus over TCP
 * ({@link LocalCluster.Builder#networkDataExchange}: each task executor has its own data server on
 * 127.0.0.1, and the keyed channels between subtask 0 and subtask 1 — half of all records — cross a
 * loopback connection with credit-based flow control), in one JVM. The target is a TCP throughput of
 * at least 0.7 of the in-memory one.
 *
 * <p>Both clusters are started once; after a warm-up job on each, the measured runs alternate
 * between them (memory, TCP, memory, TCP, …), so a change in the machine's load affects both
 * alike. Each run is a fresh job, measured by the keyed vertex's own records-in counter over a
 * wall-clock window exactly as in {@link ThroughputBenchmark}. It prints the medians, their ratio,
 * records per CPU-second of the JVM, and what each task executor sent and received over TCP.
 *
 * <pre>
 * java -Xmx2g -cp ... io.sluice.bench.NetworkThroughputBenchmark [--seconds 10] [--warmup-seconds 10] [--runs 5]
 *     [--config checkpoints|off] [--smoke]
 * </pre>
 */
public final class NetworkThroughputBenchmark {
    /** The target: TCP throughput at least this fraction of the in-memory one. */
    public static final double TARGET_RATIO = 0.7;

    private NetworkThroughputBenchmark() {}

    /** Benchmark settings. */
    public record Options(Duration window, Duration warmup, int measuredRuns, Config config) {
        public Options {
            if (window.isNegative() || window.isZero() || measuredRuns < 1) {
                throw new IllegalArgumentException("window must be positive and runs >= 1");
            }
        }

        public static Options defaults() {
            return new Options(Duration.ofSeconds(10), Duration.ofSeconds(10), 5, Config.CHECKPOINTS_1S);
        }

        /** For CI: 1-second windows, one measured run per exchange. */
        public static Options smoke() {
            return new Options(Duration.ofSeconds(1), Duration.ofSeconds(1), 1, Config.CHECKPOINTS_1S);
        }
    }

    /** The medians of both exchanges and what went over TCP. */
    public record Result(ConfigResult inMemory, ConfigResult overTcp, List<String> tcpTraffic) {
        public double ratio() {
            return overTcp.median() / inMemory.median();
        }
    }

    public static void main(String[] args) throws Exception {
        run(parse(args), System.out);
        System.exit(0);
    }

    static Options parse(String[] args) {
        Options o = Options.defaults();
        Duration window = null;
        Duration warmup = null;
        Integer runs = null;
        Config config = o.config();
        boolean smoke = false;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--smoke" -> smoke = true;
                case "--seconds" -> window = Duration.ofMillis(Math.round(Double.parseDouble(args[++i]) * 1000));
                case "--warmup-seconds" -> warmup = Duration.ofMillis(Math.round(Double.parseDouble(args[++i]) * 1000));
                case "--runs" -> runs = Integer.parseInt(args[++i]);
                case "--config" -> config = switch (args[++i]) {
                    case "checkpoints" -> Config.CHECKPOINTS_1S;
                    case "off" -> Config.CHECKPOINTS_OFF;
                    default -> throw new IllegalArgumentException("--config takes 'checkpoints' or 'off', not " + args[i]);
                };
                case "--help", "-h" -> {
                    System.out.println("Usage: NetworkThroughputBenchmark [--seconds N (10)] [--warmup-seconds N (= --seconds)]"
                            + " [--runs N (5)] [--config checkpoints|off (checkpoints)] [--smoke (1 s windows, 1 run)]");
                    System.exit(0);
                }
                default -> throw new IllegalArgumentException("Unknown option " + args[i] + "; try --help");
            }
        }
        if (smoke) {
            o = Options.smoke();
        }
        Duration w = window != null ? window : o.window();
        Duration wu = warmup != null ? warmup : (window != null ? window : o.warmup());
        return new Options(w, wu, runs != null ? runs : o.measuredRuns(), config);
    }

    /** Runs the benchmark, printing each run, the medians and their ratio to {@code out}. */
    public static Result run(Options options, PrintStream out) throws Exception {
        out.printf(Locale.ROOT, "Sluice keyed-counting throughput, in memory vs over TCP: parallelism %d, %d keys, 2 task"
                        + " executors x 1 slot, %s, %d cores, JVM %s, max heap %d MiB%n", ThroughputBenchmark.PARALLELISM,
                ThroughputBenchmark.KEYS, options.config().label(), Runtime.getRuntime().availableProcessors(),
                System.getProperty("java.vm.version"), Runtime.getRuntime().maxMemory() >> 20);
        out.printf(Locale.ROOT, "warm-up %.1f s per exchange, then %d measured run(s) of %.1f s each, alternating%n",
                options.warmup().toMillis() / 1e3, options.measuredRuns(), options.window().toMillis() / 1e3);
        Path checkpoints = Files.createTempDirectory("sluice-bench-network-checkpoints");
        List<Run> memoryRuns = new ArrayList<>();
        List<Run> tcpRuns = new ArrayList<>();
        List<String> traffic = new ArrayList<>();
        try (LocalCluster memory = LocalCluster.builder().taskExecutors(2).slotsPerTaskExecutor(1).build();
             LocalCluster tcp = LocalCluster.builder().taskExecutors(2).slotsPerTaskExecutor(1)
                     .networkDataExchange(true).build()) {
            Config config = options.config();
            print(out, "memory warm-up", ThroughputBenchmark.measure(memory, config, checkpoints, 0, Duration.ZERO,
                    options.warmup()));
            print(out, "TCP warm-up   ", ThroughputBenchmark.measure(tcp, config, checkpoints, 0, Duration.ZERO,
                    options.warmup()));
            for (int i = 1; i <= options.measuredRuns(); i++) {
                Run m = ThroughputBenchmark.measure(memory, config, checkpoints, i, Duration.ofSeconds(1), options.window());
                memoryRuns.add(m);
                print(out, "memory run " + i + "  ", m);
                Run t = ThroughputBenchmark.measure(tcp, config, checkpoints, i, Duration.ofSeconds(1), options.window());
                tcpRuns.add(t);
                print(out, "TCP run " + i + "     ", t);
            }
            for (NettyShuffleEnvironment env : tcp.networkEnvironments()) {
                DataExchangeMetrics metrics = env.metrics();
                traffic.add(String.format(Locale.ROOT, "%s: sent %,d buffers (%,d MiB), received %,d buffers (%,d MiB)",
                        env, metrics.buffersSent(), metrics.bytesSent() >> 20, metrics.buffersReceived(),
                        metrics.bytesReceived() >> 20));
            }
        } finally {
            ThroughputBenchmark.deleteRecursively(checkpoints);
        }
        Result result = new Result(new ConfigResult(options.config(), memoryRuns), new ConfigResult(options.config(), tcpRuns),
                traffic);
        out.println();
        out.printf(Locale.ROOT, "MEDIAN in memory  %,16.0f records/s  %,14.0f rec/CPU-s%n", result.inMemory().median(),
                result.inMemory().medianPerCpuSecond());
        out.printf(Locale.ROOT, "MEDIAN over TCP   %,16.0f records/s  %,14.0f rec/CPU-s%n", result.overTcp().median(),
                result.overTcp().medianPerCpuSecond());
        out.printf(Locale.ROOT, "RATIO TCP / memory %.3f (target >= %.1f); per CPU-second %.3f%n", result.ratio(), TARGET_RATIO,
                result.overTcp().medianPerCpuSecond() / result.inMemory().medianPerCpuSecond());
        traffic.forEach(line -> out.println("TCP traffic " + line));
        out.flush();
        return result;
    }

    private static void print(PrintStream out, String label, Run r) {
        out.printf(Locale.ROOT, "   %s %,14.0f records/s  %,12.0f rec/CPU-s  (%,d records in %.2f s, %d checkpoints)%s%n",
                label, r.recordsPerSecond(), r.recordsPerCpuSecond(), r.records(), r.nanos() / 1e9, r.checkpointsCompleted(),
                r.valid() ? "" : "  INVALID: the job restarted, excluded");
        out.flush();
    }
}
