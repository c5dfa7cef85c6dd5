package io.sluice.bench.recovery;

import ch.qos.logback.classic.Level;
import io.sluice.cluster.LocalCluster;
import io.sluice.config.Configuration;
import io.sluice.jobmaster.RecoveryBackoff;
import io.sluice.storage.FaultInjectingBlobStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Comparator;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.slf4j.LoggerFactory;

/** Small helpers shared by the recovery benchmarks: percentiles, clusters with fault injection, temp dirs. */
final class BenchSupport {
    private BenchSupport() {}

    /** Percentiles of nanosecond samples (nearest rank on a sorted copy). */
    record Stats(int count, long minNanos, long p50Nanos, long p90Nanos, long p99Nanos, long p999Nanos, long maxNanos,
                 double meanNanos) {
        static Stats of(long[] samples) {
            if (samples.length == 0) {
                return new Stats(0, 0, 0, 0, 0, 0, 0, 0);
            }
            long[] s = samples.clone();
            Arrays.sort(s);
            double sum = 0;
            for (long v : s) {
                sum += v;
            }
            return new Stats(s.length, s[0], percentile(s, 50), percentile(s, 90), percentile(s, 99),
                    percentile(s, 99.9), s[s.length - 1], sum / s.length);
        }

        String describeMicros() {
            return String.format(Locale.ROOT, "n=%d  min=%s  p50=%s  p90=%s  p99=%s  p99.9=%s  max=%s  mean=%s",
                    count, micros(minNanos), micros(p50Nanos), micros(p90Nanos), micros(p99Nanos), micros(p999Nanos),
                    micros(maxNanos), micros((long) meanNanos));
        }
    }

    /** Nearest-rank percentile of a sorted array. */
    static long percentile(long[] sorted, double p) {
        int rank = (int) Math.ceil(p / 100.0 * sorted.length);
        return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))];
    }

    /** Median of samples (lower middle for even counts is avoided: mean of the two middle values). */
    static long median(long[] samples) {
        long[] s = samples.clone();
        Arrays.sort(s);
        int n = s.length;
        return n % 2 == 1 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
    }

    static String micros(long nanos) {
        return String.format(Locale.ROOT, "%.1f us", nanos / 1_000.0);
    }

    static String millis(long nanos) {
        return String.format(Locale.ROOT, "%.2f ms", nanos / 1_000_000.0);
    }

    /** Benchmarks log WARN and above (task failures still log their stack trace, as in production); -Dbench.logLevel=... to change. */
    static void quietLogging() {
        org.slf4j.Logger root = LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
        if (root instanceof ch.qos.logback.classic.Logger l) {
            l.setLevel(Level.toLevel(System.getProperty("bench.logLevel", "WARN")));
        }
    }

    static boolean smoke(String[] args) {
        return Arrays.asList(args).contains("--smoke");
    }

    /** A cluster on an embedded HA directory whose checkpoint blob store is fault-injecting. */
    static LocalCluster cluster(Path dir, AtomicReference<FaultInjectingBlobStore> faults, int taskExecutors,
                                int slotsPerTaskExecutor) {
        return cluster(dir, faults, taskExecutors, slotsPerTaskExecutor, new Configuration());
    }

    /** The same, with {@code configuration} (for example the RocksDB backend's options) for the cluster. */
    static LocalCluster cluster(Path dir, AtomicReference<FaultInjectingBlobStore> faults, int taskExecutors,
                                int slotsPerTaskExecutor, Configuration configuration) {
        return LocalCluster.builder().haDirectory(dir.resolve("ha")).configuration(configuration)
                .taskExecutors(taskExecutors).slotsPerTaskExecutor(slotsPerTaskExecutor)
                .blobStoreDecorator(FaultInjectingBlobStore.capturingInto(faults))
                .recoveryBackoff(new RecoveryBackoff(Duration.ofMillis(20), Duration.ofMillis(200), 2.0, 0.2))
                .build();
    }

    static Path tempDir(String prefix) throws IOException {
        return Files.createTempDirectory(prefix);
    }

    static void deleteQuietly(Path dir) {
        try (Stream<Path> s = Files.walk(dir)) {
            s.sorted(Comparator.reverseOrder()).forEach(p -> {
                try {
                    Files.deleteIfExists(p);
                } catch (IOException ignored) {
                    // best effort
                }
            });
        } catch (IOException ignored) {
            // best effort
        }
    }

    /** Polls {@code condition} every millisecond until it holds or {@code timeout} passes. */
    static void await(String what, Duration timeout, CheckedCondition condition) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.holds()) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("Timed out after " + timeout + " waiting for " + what);
            }
            Thread.sleep(1);
        }
    }

    /** A condition that may throw. */
    interface CheckedCondition {
        boolean holds() throws Exception;
    }

    static String machine() {
        return String.format(Locale.ROOT, "%d CPUs available to the JVM, Java %s (%s), max heap %d MiB, %s %s",
                Runtime.getRuntime().availableProcessors(), System.getProperty("java.version"),
                System.getProperty("java.vm.name"), Runtime.getRuntime().maxMemory() >> 20,
                System.getProperty("os.name"), System.getProperty("os.arch"));
    }
}
