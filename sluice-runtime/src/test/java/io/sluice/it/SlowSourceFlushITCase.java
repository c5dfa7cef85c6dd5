package io.sluice.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.sluice.api.StreamExecutionEnvironment;
import io.sluice.api.sink.CollectingSink;
import io.sluice.api.source.SequenceSource;
import io.sluice.cluster.LocalCluster;
import io.sluice.core.serialization.Serializers;
import io.sluice.graph.JobId;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A rate-limited source is caught up most of the time: its task must hand its partly filled
 * output buffers downstream then, not only when a buffer fills or a checkpoint barrier passes.
 * (Found by the task-failover benchmark: restarted jobs processed nothing until the first
 * checkpoint after the restart, and without checkpoints a slow source's records sat in its
 * 32 KiB buffers for minutes.)
 */
class SlowSourceFlushITCase {

    @Test
    void recordsOfARateLimitedSourceReachTheNextTaskPromptlyWithoutCheckpoints() throws Exception {
        CollectingSink<Long> sink = CollectingSink.create();
        try (LocalCluster cluster = LocalCluster.builder().build()) {
            StreamExecutionEnvironment env = StreamExecutionEnvironment.create().setParallelism(1);
            // keyBy puts a network edge (and its buffers) between the source and the map.
            env.fromSource(SequenceSource.unbounded(0).withRate(500), "slow numbers")
                    .keyBy(v -> v % 4)
                    .map(v -> v).returns(Serializers.LONG)
                    .addSink(sink, "sink");
            JobId id = cluster.submit(env.buildJobGraph("slow source"));
            await().atMost(Duration.ofSeconds(3)).until(() -> sink.results().size() >= 10);
            assertThat(sink.results()).startsWith(0L, 1L, 2L);
            cluster.dispatcher().cancelJob(id).get(10, TimeUnit.SECONDS);
        } finally {
            sink.release();
        }
    }
}
