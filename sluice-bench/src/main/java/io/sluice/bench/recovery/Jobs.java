package io.sluice.bench.recovery;

import io.sluice.api.StreamExecutionEnvironment;
import io.sluice.api.sink.DiscardingSink;
import io.sluice.api.source.SequenceSource;
import io.sluice.config.RestartStrategyConfig;
import io.sluice.examples.InjectedFailures;
import io.sluice.examples.KeyedCountingJob;
import io.sluice.graph.JobGraph;
import java.nio.file.Path;
import java.time.Duration;

/** The keyed counting job, unbounded and rate-limited, as the recovery benchmarks use it. */
final class Jobs {
    static final int KEYS = 8;

    private Jobs() {}

    static JobGraph countingJob(String name, Path checkpointDir, int parallelism, double rate, Duration interval,
                                int retained) {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.create().setParallelism(parallelism)
                .enableCheckpointing(interval)
                .setRetainedCheckpoints(retained)
                .setCheckpointDir(checkpointDir.toString())
                .setRestartStrategy(new RestartStrategyConfig.FixedDelay(10, Duration.ofMillis(10)));
        KeyedCountingJob.build(env, SequenceSource.unbounded(0).withRate(rate), KEYS, InjectedFailures.none(),
                new DiscardingSink<>());
        return env.buildJobGraph(name);
    }
}
