package io.sluice.cli.demo;

import io.sluice.api.StreamExecutionEnvironment;
import io.sluice.api.source.SequenceSource;
import io.sluice.config.RestartStrategyConfig;
import io.sluice.graph.JobGraph;
import io.sluice.graph.JobVertex;
import io.sluice.protocol.JobDetails;
import io.sluice.protocol.VertexStatus;
import java.time.Duration;
import java.util.Map;
import java.util.Random;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.function.Predicate;
import java.util.function.ToLongFunction;

/**
 * The demo's job: a {@link CountingRun} over {@code 0..records-1} with failures placed by the seed.
 * Close it to end the run.
 */
final class DemoJob implements AutoCloseable {
    static final String NAME = "sluice demo: keyed counting";
    /** Restarts allowed beyond the injected failures, for failures nobody planned. */
    private static final int SPARE_RESTARTS = 5;
    private static final Duration RESTART_DELAY = Duration.ofMillis(200);

    private final DemoSettings settings;
    private final SortedSet<Long> failAt;
    private final CountingRun run;
    private final JobGraph graph;

    DemoJob(DemoSettings settings) {
        this.settings = settings;
        this.failAt = failurePositions(settings.records(), settings.failures(), settings.seed());
        this.run = new CountingRun(failAt);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.create()
                .setParallelism(settings.parallelism())
                .enableCheckpointing(settings.checkpointInterval())
                .setCheckpointDir(settings.checkpointDir())
                .setRestartStrategy(new RestartStrategyConfig.FixedDelay(settings.failures() + SPARE_RESTARTS, RESTART_DELAY));
        SequenceSource source = SequenceSource.bounded(0, settings.records() - 1);
        if (settings.rate() > 0) {
            source = source.withRate(settings.rate());
        }
        run.addJob(env, source, settings.keys());
        this.graph = env.buildJobGraph(NAME);
    }

    /** {@code count} distinct records in {@code [0, records)}, chosen by {@code seed}. */
    static SortedSet<Long> failurePositions(long records, int count, long seed) {
        Random random = new Random(seed);
        SortedSet<Long> positions = new TreeSet<>();
        while (positions.size() < count) {
            positions.add(random.nextLong(records));
        }
        return positions;
    }

    JobGraph graph() {
        return graph;
    }

    SortedSet<Long> failAt() {
        return failAt;
    }

    int failuresThrown() {
        return run.failuresThrown();
    }

    /** Records the source vertices emitted in the current attempt. */
    long sourceRecords(JobDetails details) {
        return sum(details, JobVertex::isSource, VertexStatus::recordsOut);
    }

    /** Records the keyed (counting) vertices took in during the current attempt. */
    long countedRecords(JobDetails details) {
        return sum(details, JobVertex::hasKeyedState, VertexStatus::recordsIn);
    }

    private long sum(JobDetails details, Predicate<JobVertex> which, ToLongFunction<VertexStatus> value) {
        return details.vertices().stream()
                .filter(v -> which.test(graph.vertex(v.vertexId())))
                .mapToLong(value)
                .sum();
    }

    /** The last count the sink saw per key: the job's final keyed state. */
    Map<Long, Long> finalCounts() {
        return run.lastCounts();
    }

    Map<Long, Long> expectedCounts() {
        return CountingRun.expectedCounts(settings.records(), settings.keys());
    }

    @Override
    public void close() {
        run.close();
    }
}
