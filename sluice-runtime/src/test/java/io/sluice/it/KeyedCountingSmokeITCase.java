package io.sluice.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.api.StreamExecutionEnvironment;
import io.sluice.api.tuple.Tuple2;
import io.sluice.api.sink.CollectingSink;
import io.sluice.api.source.SequenceSource;
import io.sluice.cluster.LocalCluster;
import io.sluice.examples.InjectedFailures;
import io.sluice.examples.KeyedCountingJob;
import io.sluice.job.JobResult;
import io.sluice.job.JobStatus;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class KeyedCountingSmokeITCase {
    @TempDir
    Path dir;

    @Test
    void boundedKeyedCountingFinishesWithExactCounts() throws Exception {
        try (LocalCluster cluster = LocalCluster.builder().build()) {
            StreamExecutionEnvironment env = StreamExecutionEnvironment.create().setParallelism(2)
                    .enableCheckpointing(Duration.ofMillis(20)).setCheckpointDir(dir.toString());
            CollectingSink<Tuple2<Long, Long>> sink = CollectingSink.create();
            KeyedCountingJob.build(env, SequenceSource.bounded(0, 99_999), 16, InjectedFailures.none(), sink);
            JobResult result = cluster.executeAndWait(env.buildJobGraph("smoke"), Duration.ofMinutes(1));
            assertThat(result.status()).as(String.valueOf(result.failureStackTrace())).isEqualTo(JobStatus.FINISHED);
            List<Tuple2<Long, Long>> out = sink.results();
            Map<Long, Long> last = CollectingSink.lastValuePerKey(out, Tuple2::f0, Tuple2::f1);
            assertThat(last).isEqualTo(KeyedCountingJob.expectedCounts(100_000, 16));
            assertThat(out).hasSize(100_000);
        }
    }
}
