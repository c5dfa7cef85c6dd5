package io.sluice.compare.flink;

import java.util.Arrays;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Metric;
import org.apache.flink.metrics.MetricConfig;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.metrics.reporter.MetricReporter;
import org.apache.flink.metrics.reporter.MetricReporterFactory;

/**
 * A Flink metric reporter that keeps, for this JVM, the counters of the bytes every task's input
 * gates received from other task managers over Netty ({@code Shuffle.Netty.Input.numBytesInRemote})
 * and from tasks in the same task manager ({@code Shuffle.Netty.Input.numBytesInLocal}). The
 * two-task-manager throughput scenario registers it ({@link #register}) to show that its keyed exchange
 * really crosses Flink's network stack, and how many bytes per record.
 *
 * <p>Found by Flink through {@code META-INF/services/org.apache.flink.metrics.reporter.MetricReporterFactory}
 * and the configuration's {@code metrics.reporter.sluice-shuffle-bytes.factory.class}.
 *
 * <p>Thread rules: Flink's metric registry calls it from any thread; the sums are read from any thread.
 */
public final class ShuffleBytesReporter implements MetricReporter {
    private static final String NAME = "sluice-shuffle-bytes";
    private static final Set<Counter> REMOTE = ConcurrentHashMap.newKeySet();
    private static final Set<Counter> LOCAL = ConcurrentHashMap.newKeySet();

    /** Adds this reporter to {@code configuration}, for the next cluster started with it. */
    static Configuration register(Configuration configuration) {
        configuration.setString("metrics.reporter." + NAME + ".factory.class", Factory.class.getName());
        return configuration;
    }

    /** Bytes the running tasks received from other task managers so far. */
    static long remoteBytes() {
        return REMOTE.stream().mapToLong(Counter::getCount).sum();
    }

    /** Bytes the running tasks received from tasks of their own task manager so far. */
    static long localBytes() {
        return LOCAL.stream().mapToLong(Counter::getCount).sum();
    }

    public void open(MetricConfig config) {
    }

    public void close() {
    }

    @Override
    public void notifyOfAddedMetric(Metric metric, String name, MetricGroup group) {
        Set<Counter> set = set(metric, name, group);
        if (set != null) {
            set.add((Counter) metric);
        }
    }

    @Override
    public void notifyOfRemovedMetric(Metric metric, String name, MetricGroup group) {
        Set<Counter> set = set(metric, name, group);
        if (set != null) {
            set.remove((Counter) metric);
        }
    }

    /**
     * The set a counter belongs to, or null. Only the counters of the {@code Shuffle.Netty.Input} group:
     * Flink registers the same figures once more, deprecated, in the task's own group.
     */
    private static Set<Counter> set(Metric metric, String name, MetricGroup group) {
        String[] scope = group.getScopeComponents();
        int n = scope.length;
        if (!(metric instanceof Counter) || n < 3
                || !Arrays.asList(scope).subList(n - 3, n).equals(List.of("Shuffle", "Netty", "Input"))) {
            return null;
        }
        return switch (name) {
            case "numBytesInRemote" -> REMOTE;
            case "numBytesInLocal" -> LOCAL;
            default -> null;
        };
    }

    /** Creates the reporter; Flink finds it through the service file and the configured class name. */
    public static final class Factory implements MetricReporterFactory {
        @Override
        public MetricReporter createMetricReporter(Properties properties) {
            return new ShuffleBytesReporter();
        }
    }
}
