package io.sluice.compare.kafka;

import io.sluice.compare.Plan;
import io.sluice.compare.Results;
import io.sluice.compare.Scenario;
import io.sluice.compare.Scenario.Metric;
import io.sluice.compare.Stats;
import java.time.Duration;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * {@link Scenario#KAFKA_EXACTLY_ONCE}, the same on every system; only the job differs ({@link KafkaJobStarter}).
 *
 * <ol>
 *   <li>A KRaft broker starts in this JVM ({@link BenchBroker}); topics {@code in} and {@code out} with
 *       {@link KafkaPlan#partitions()} partitions each.</li>
 *   <li>The backlog ({@link KafkaPlan#backlog()} untimed records) is written to {@code in}; a
 *       {@code read_committed} consumer of {@code out} starts ({@link VisibilityConsumer}); the job starts.</li>
 *   <li>records/s: once a {@link KafkaPlan#measureFrom()} share of the backlog's counts is visible, until all
 *       of them are, the counts that became visible ÷ the time (so start-up, warm-up and the first checkpoint
 *       are outside the window; with exactly once, output becomes visible per completed checkpoint, so the
 *       figure is committed output, end to end). records/CPU-second: the same counts ÷ the JVM's CPU time in
 *       the window (broker, clients and job share the JVM on every system).</li>
 *   <li>Visibility latency: with the backlog drained, {@link KafkaPlan#pacedRate()} timed records/s for
 *       {@link KafkaPlan#pacedDuration()}; for each, the time from just before its {@code send} to the poll
 *       that delivered its count to the consumer: p50, p99, max.</li>
 *   <li>Exactly once: every count of every key seen once, none missing, none twice (else the scenario fails).</li>
 * </ol>
 *
 * <p>Threading: the harness thread.
 */
public final class KafkaScenario {
    private KafkaScenario() {}

    /** Header lines describing the scenario's set-up, the same for every system. */
    public static void describe(Results results, Plan plan) {
        results.header("kafka-plan", KafkaPlan.of(plan).describe());
        results.header("kafka-broker", "kafka-test-common-runtime " + org.apache.kafka.common.utils.AppInfoParser.getVersion()
                + " (broker and clients) KafkaClusterTestKit in the harness JVM,"
                + " 1 combined broker/controller node, " + new java.util.TreeMap<>(BenchBroker.SETTINGS)
                + "; input producer: " + InputProducer.SETTINGS + "; output consumer: read_committed,"
                + " max.poll.records=20000, fetch.max.wait.ms=5");
    }

    public static void run(Plan plan, KafkaJobStarter starter, Results rows, Consumer<String> log) throws Exception {
        KafkaPlan k = KafkaPlan.of(plan);
        String variant = k.variant();
        long t0 = System.nanoTime();
        try (BenchBroker broker = BenchBroker.start()) {
            log.accept(String.format(Locale.ROOT, "broker up at %s in %.1f s", broker.bootstrapServers(),
                    (System.nanoTime() - t0) / 1e9));
            broker.createTopic("in", k.partitions());
            broker.createTopic("out", k.partitions());
            long total = k.backlog() + k.pacedRecords();
            try (InputProducer producer = new InputProducer(broker.bootstrapServers(), "in")) {
                long p0 = System.nanoTime();
                producer.backlog(k.backlog());
                log.accept(String.format(Locale.ROOT, "backlog of %,d records written in %.1f s", k.backlog(),
                        (System.nanoTime() - p0) / 1e9));
                long windowStartAt = Math.max(1, (long) (k.measureFrom() * k.backlog()));
                VisibilityConsumer consumer = new VisibilityConsumer(broker.bootstrapServers(), "out", k.partitions(),
                        k.keys(), windowStartAt, k.backlog(), (int) k.pacedRecords());
                try {
                    consumer.start();
                    long jobStart = System.nanoTime();
                    String prefix = "compare-" + UUID.randomUUID();
                    try (AutoCloseable job = starter.start(broker.bootstrapServers(), "in", "out", prefix, k.keys(),
                            k.checkpointInterval())) {
                        await(consumer, k.backlog(), k.drainTimeout(), "the backlog's counts");
                        VisibilityConsumer.Milestone end = consumer.backlogVisible();
                        VisibilityConsumer.Milestone start = k.measureFrom() > 0 ? consumer.windowStart()
                                : new VisibilityConsumer.Milestone(jobStart, 0, end.cpuNanos());
                        double seconds = (end.nanos() - start.nanos()) / 1e9;
                        long counted = end.visible() - start.visible();
                        double perSecond = counted / seconds;
                        double perCpuSecond = k.measureFrom() > 0
                                ? counted / ((end.cpuNanos() - start.cpuNanos()) / 1e9) : Double.NaN;
                        log.accept(String.format(Locale.ROOT, "backlog visible %.1f s after the job's start;"
                                        + " %,d counts became visible in %.2f s of the window: %,.0f records/s"
                                        + " (%,.0f per CPU-second of the JVM)", (end.nanos() - jobStart) / 1e9,
                                counted, seconds, perSecond, perCpuSecond));
                        long l0 = System.nanoTime();
                        producer.paced(k.pacedRate(), k.pacedRecords());
                        log.accept(String.format(Locale.ROOT, "%,d timed records written in %.1f s",
                                k.pacedRecords(), (System.nanoTime() - l0) / 1e9));
                        await(consumer, total, Duration.ofSeconds(60), "the timed records' counts");
                        rows.add(Scenario.KAFKA_EXACTLY_ONCE, variant, Metric.RECORDS_PER_S, perSecond);
                        if (k.measureFrom() > 0) {
                            rows.add(Scenario.KAFKA_EXACTLY_ONCE, variant, Metric.RECORDS_PER_CPU_S, perCpuSecond);
                        }
                    }
                } finally {
                    consumer.close();
                }
                long[] latencies = consumer.latenciesNanos();
                long missing = consumer.missing(producer.written());
                long unexpected = consumer.unexpected(producer.written());
                long duplicates = consumer.duplicates();
                log.accept(String.format(Locale.ROOT, "visibility of %,d timed records: p50 %.1f ms, p99 %.1f ms,"
                                + " max %.1f ms; exactly once: %d missing, %d duplicates, %d unexpected of %,d",
                        latencies.length, ms(Stats.percentile(latencies, 50)), ms(Stats.percentile(latencies, 99)),
                        ms(latencies[latencies.length - 1]), missing, duplicates, unexpected, total));
                if (missing != 0 || duplicates != 0 || unexpected != 0 || latencies.length != k.pacedRecords()) {
                    throw new IllegalStateException(String.format(Locale.ROOT, "Not exactly once: of the %,d counts"
                                    + " the input gives, %d never became visible, %d were visible twice, %d visible"
                                    + " counts match no input record; %,d of %,d timed records seen", total, missing,
                            duplicates, unexpected, latencies.length, k.pacedRecords()));
                }
                rows.add(Scenario.KAFKA_EXACTLY_ONCE, variant, Metric.VISIBILITY_P50_MS, ms(Stats.percentile(latencies, 50)))
                        .add(Scenario.KAFKA_EXACTLY_ONCE, variant, Metric.VISIBILITY_P99_MS, ms(Stats.percentile(latencies, 99)))
                        .add(Scenario.KAFKA_EXACTLY_ONCE, variant, Metric.VISIBILITY_MAX_MS, ms(latencies[latencies.length - 1]))
                        .add(Scenario.KAFKA_EXACTLY_ONCE, variant, Metric.DUPLICATES, duplicates)
                        .add(Scenario.KAFKA_EXACTLY_ONCE, variant, Metric.CHECK_RECORDS, consumer.visible())
                        .add(Scenario.KAFKA_EXACTLY_ONCE, variant, Metric.CHECK_RECORDS_EXPECTED, total);
            }
        }
    }

    private static double ms(long nanos) {
        return nanos / 1e6;
    }

    private static void await(VisibilityConsumer consumer, long visible, Duration timeout, String what)
            throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (consumer.visible() < visible) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(String.format(Locale.ROOT, "Only %,d of %,d output records (%s)"
                        + " became visible to a read_committed consumer within %d s", consumer.visible(), visible, what,
                        timeout.toSeconds()));
            }
            TimeUnit.MILLISECONDS.sleep(5);
        }
    }
}
