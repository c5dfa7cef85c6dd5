package io.sluice.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.sluice.api.StreamExecutionEnvironment;
import io.sluice.api.functions.SinkFunction;
import io.sluice.api.source.SequenceSource;
import io.sluice.cluster.LocalCluster;
import io.sluice.core.serialization.Serializers;
import io.sluice.graph.JobId;
import io.sluice.protocol.JobDetails;
import io.sluice.job.JobStatus;
import io.sluice.protocol.VertexStatus;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * With a sink that stops consuming, the source stops too: the records in flight between them stay
 * bounded by the channel capacity (buffers per channel) instead of piling up in memory.
 */
class BackpressureITCase {
    private static final int BUFFER_SIZE = 4096;
    private static final int BUFFERS_PER_CHANNEL = 2;

    @Test
    void aStalledSinkStopsTheSourceWithBoundedRecordsInFlight() throws Exception {
        String id = UUID.randomUUID().toString();
        GatedSink.PERMITS.put(id, new Semaphore(1_000));
        GatedSink.CONSUMED.put(id, new AtomicLong());
        try (LocalCluster cluster = LocalCluster.builder().taskExecutors(1).slotsPerTaskExecutor(1)
                .bufferSize(BUFFER_SIZE).buffersPerChannel(BUFFERS_PER_CHANNEL).build()) {
            StreamExecutionEnvironment env = StreamExecutionEnvironment.create().setParallelism(1);
            env.fromSource(SequenceSource.unbounded(0), "fast").returns(Serializers.LONG)
                    .rebalance()
                    .addSink(new GatedSink(id), "gated");
            JobId job = cluster.submit(env.buildJobGraph("backpressure"));

            // The sink consumes its 1,000 permits, then blocks. The source must stall soon after.
            await().atMost(Duration.ofSeconds(30)).until(() -> GatedSink.CONSUMED.get(id).get() == 1_000);
            long[] previous = {-1};
            await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200)).until(() -> {
                long emitted = sourceRecords(cluster, job);
                boolean stalled = emitted == previous[0];
                previous[0] = emitted;
                return stalled;
            });
            long inFlight = sourceRecords(cluster, job) - GatedSink.CONSUMED.get(id).get();
            // 8-byte records: the channel's buffers, the writer's open buffer and the one being read.
            long perBuffer = BUFFER_SIZE / 8 + 64;
            long bound = (BUFFERS_PER_CHANNEL + 2) * perBuffer;
            System.out.printf("records in flight with a stalled sink: %d (bound %d)%n", inFlight, bound);
            assertThat(inFlight).isPositive().isLessThanOrEqualTo(bound);

            // Releasing the sink lets the source go on.
            long stalledAt = sourceRecords(cluster, job);
            GatedSink.PERMITS.get(id).release(100_000);
            await().atMost(Duration.ofSeconds(30)).until(() -> sourceRecords(cluster, job) > stalledAt + 50_000);
            cluster.dispatcher().cancelJob(job).get(10, TimeUnit.SECONDS);
            assertThat(cluster.dispatcher().requestJobResult(job).get(30, TimeUnit.SECONDS).status()).isEqualTo(JobStatus.CANCELED);
        } finally {
            GatedSink.PERMITS.remove(id).release(Integer.MAX_VALUE / 2);
            GatedSink.CONSUMED.remove(id);
        }
    }

    private static long sourceRecords(LocalCluster cluster, JobId job) throws Exception {
        JobDetails d = cluster.dispatcher().requestJobDetails(job).get(5, TimeUnit.SECONDS);
        return d.vertices().stream().filter(v -> v.name().startsWith("Source")).mapToLong(VertexStatus::recordsOut).sum();
    }

    /** Consumes one record per permit; blocks (interruptibly) when there is none. */
    static final class GatedSink implements SinkFunction<Long> {
        static final Map<String, Semaphore> PERMITS = new ConcurrentHashMap<>();
        static final Map<String, AtomicLong> CONSUMED = new ConcurrentHashMap<>();
        private final String id;

        GatedSink(String id) {
            this.id = id;
        }

        @Override
        public void invoke(Long value) throws InterruptedException {
            PERMITS.get(id).acquire();
            CONSUMED.get(id).incrementAndGet();
        }
    }

}
