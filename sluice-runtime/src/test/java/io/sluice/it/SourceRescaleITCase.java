package io.sluice.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.sluice.api.StreamExecutionEnvironment;
import io.sluice.api.sink.CollectingSink;
import io.sluice.api.source.SequenceSource;
import io.sluice.api.tuple.Tuple2;
import io.sluice.cluster.LocalCluster;
import io.sluice.config.StateBackendType;
import io.sluice.core.serialization.Serializers;
import io.sluice.examples.InjectedFailures;
import io.sluice.examples.KeyedCountingJob;
import io.sluice.graph.JobId;
import io.sluice.job.JobResult;
import io.sluice.job.JobStatus;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.function.BinaryOperator;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The source's parallelism changes with the job's (issue 21): a keyed count over a {@link SequenceSource}
 * runs at parallelism 2 -> 3 -> 1 -> 4, source included, each stage cancelled after checkpoints and the next
 * restored from its latest one; the sequence's readers split what the old ones had left between them. The
 * last stage reads to the end and every key's count must be exact (a record read twice or never would show),
 * and every stage must have gone on from the counts of the one before. Per state backend.
 */
class SourceRescaleITCase {
    private static final int KEYS = 8;
    private static final long RECORDS = 12_000;
    private static LocalCluster cluster;

    @TempDir
    Path dir;

    @BeforeAll
    static void start() {
        cluster = LocalCluster.builder().taskExecutors(2).slotsPerTaskExecutor(2).build();
    }

    @AfterAll
    static void stop() {
        cluster.close();
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = StateBackendType.class, names = {"HEAP", "ROCKSDB"})
    void theSourceRescales2To3To1To4WithEveryKeysCountExact(StateBackendType backend) throws Exception {
        JobId a = stage(backend, 2, null);
        JobId b = stage(backend, 3, a);
        JobId c = stage(backend, 1, b);

        CollectingSink<Tuple2<Long, Long>> sink = CollectingSink.create();
        try {
            JobId last = submit(job(backend, 4, SequenceSource.bounded(0, RECORDS - 1), sink), c);
            JobResult result = cluster.dispatcher().requestJobResult(last).get(2, TimeUnit.MINUTES);
            assertThat(result.status()).as(result.failureStackTrace()).isEqualTo(JobStatus.FINISHED);
            Map<Long, Long> expected = new HashMap<>();
            for (long k = 0; k < KEYS; k++) {
                expected.put(k, RECORDS / KEYS);
            }
            assertThat(CollectingSink.lastValuePerKey(sink.results(), Tuple2::f0, Tuple2::f1)).isEqualTo(expected);
            assertThat(firstCountPerKey(sink).values()).as("the last stage went on from the counts before").allMatch(n -> n > 1);
        } finally {
            sink.release();
        }
    }

    /**
     * Runs the job at {@code parallelism} (source included, paced so that it cannot finish first) from the latest
     * checkpoint of {@code restoreFrom} (or from scratch), until two checkpoints completed after its first output;
     * then cancels it.
     */
    private JobId stage(StateBackendType backend, int parallelism, JobId restoreFrom) throws Exception {
        CollectingSink<Tuple2<Long, Long>> sink = CollectingSink.create();
        try {
            // 200 records/s: restored at 3 from 2, the even values are split between two readers and run out twice as
            // fast as the odd ones; at 2,000/s a loaded CI machine counted every odd value before the last stage,
            // which then had nothing left to count for those keys.
            JobId job = submit(job(backend, parallelism, SequenceSource.bounded(0, RECORDS - 1).withRate(200), sink),
                    restoreFrom);
            await().atMost(Duration.ofSeconds(60)).until(() -> sink.count() > 0);
            long before = cluster.dispatcher().requestJobDetails(job).get(10, TimeUnit.SECONDS).checkpoints().completed();
            await().atMost(Duration.ofSeconds(60)).until(() -> cluster.dispatcher().requestJobDetails(job)
                    .get(10, TimeUnit.SECONDS).checkpoints().completed() >= before + 2);
            cluster.dispatcher().cancelJob(job).get(10, TimeUnit.SECONDS);
            JobResult result = cluster.dispatcher().requestJobResult(job).get(60, TimeUnit.SECONDS);
            assertThat(result.status()).as("stage at parallelism " + parallelism + " ended before it was cancelled")
                    .isEqualTo(JobStatus.CANCELED);
            if (restoreFrom != null) {
                assertThat(firstCountPerKey(sink).values()).as("went on from the counts before").allMatch(n -> n > 1);
            }
            assertThat(countPerKey(sink, Math::max).values())
                    .as("every key has records left after the stage at parallelism " + parallelism
                            + ", so that the next stage shows it went on")
                    .allMatch(n -> n < RECORDS / KEYS);
            System.out.printf("SourceRescaleITCase %s: stage at parallelism %d counted %d records%n", backend,
                    parallelism, sink.count());
            return job;
        } finally {
            sink.release();
        }
    }

    private static Map<Long, Long> firstCountPerKey(CollectingSink<Tuple2<Long, Long>> sink) {
        return countPerKey(sink, Math::min);
    }

    private static Map<Long, Long> countPerKey(CollectingSink<Tuple2<Long, Long>> sink, BinaryOperator<Long> pick) {
        Map<Long, Long> counts = new HashMap<>();
        for (Tuple2<Long, Long> t : sink.results()) {
            counts.merge(t.f0(), t.f1(), pick);
        }
        return counts;
    }

    private io.sluice.graph.JobGraph job(StateBackendType backend, int parallelism, SequenceSource source,
                                         CollectingSink<Tuple2<Long, Long>> sink) {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.create().setParallelism(parallelism)
                .setStateBackend(backend).setIncrementalCheckpoints(backend == StateBackendType.ROCKSDB)
                .enableCheckpointing(Duration.ofMillis(100)).setCheckpointDir(dir.resolve("checkpoints").toString());
        env.fromSource(source, "numbers")
                .keyBy(new KeyedCountingJob.ModKey(KEYS))
                .map(new KeyedCountingJob.CountPerKey(KEYS, InjectedFailures.none())).name("count")
                .returns(Serializers.tuple2(Serializers.LONG, Serializers.LONG))
                .addSink(sink, "results");
        return env.buildJobGraph("source rescale p" + parallelism);
    }

    /** Submits once every slot is free again (the slots of an ended job are given back a little after its end). */
    private static JobId submit(io.sluice.graph.JobGraph graph, JobId restoreFrom) throws Exception {
        await().atMost(Duration.ofSeconds(60)).until(() -> cluster.slotPool().freeSlots() == 4);
        return restoreFrom == null ? cluster.submit(graph) : cluster.submit(graph, "latest:" + restoreFrom);
    }
}
