package io.sluice.rest;

import io.sluice.api.StreamExecutionEnvironment;
import io.sluice.api.sink.DiscardingSink;
import io.sluice.api.source.SequenceSource;
import io.sluice.config.RestartStrategyConfig;
import io.sluice.examples.InjectedFailures;
import io.sluice.examples.KeyedCountingJob;
import io.sluice.graph.JobGraph;
import java.time.Duration;

/** Jobs for the REST tests. */
final class TestJobs {
    private TestJobs() {}

    /** The keyed counting job over {@code records} records at {@code rate}/s, checkpointing every 50 ms to {@code checkpointDir}. */
    static JobGraph counting(String name, long records, double rate, String checkpointDir, InjectedFailures failures) {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.create().setParallelism(2)
                .enableCheckpointing(Duration.ofMillis(50))
                .setCheckpointDir(checkpointDir)
                .setRestartStrategy(new RestartStrategyConfig.FixedDelay(10, Duration.ofMillis(10)));
        KeyedCountingJob.build(env, SequenceSource.bounded(0, records - 1).withRate(rate), 4, failures, new DiscardingSink<>());
        return env.buildJobGraph(name);
    }
}
