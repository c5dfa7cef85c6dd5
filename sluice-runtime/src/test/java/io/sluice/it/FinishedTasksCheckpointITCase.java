package io.sluice.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.sluice.api.DataStream;
import io.sluice.api.StreamExecutionEnvironment;
import io.sluice.api.tuple.Tuple2;
import io.sluice.api.functions.MapFunction;
import io.sluice.api.functions.RichFunction;
import io.sluice.api.functions.RuntimeContext;
import io.sluice.api.sink.CollectingSink;
import io.sluice.api.source.SequenceSource;
import io.sluice.api.state.ValueState;
import io.sluice.api.state.ValueStateDescriptor;
import io.sluice.cluster.LocalCluster;
import io.sluice.core.serialization.Serializers;
import io.sluice.examples.InjectedFailures;
import io.sluice.graph.JobId;
import io.sluice.protocol.JobDetails;
import io.sluice.job.JobStatus;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A short bounded source unioned with an endless one: once the bounded source has finished,
 * checkpoints keep completing (the finished subtasks are part of them as finished), and after a
 * task failure the bounded source is restored as finished: its records are not replayed from the
 * start, and the keyed counts stay exact.
 */
class FinishedTasksCheckpointITCase {
    private static final long BOUNDED = 10_000;
    private static final long ENDLESS_FROM = 1_000_000_000L;
    private static final int KEYS = 4;

    @TempDir
    Path dir;

    @Test
    void checkpointsContinueAfterABoundedSourceFinishedAndItIsNotReplayedAfterAFailure() throws Exception {
        CollectingSink<Tuple2<Long, Long>> sink = CollectingSink.create();
        // The failure comes after about 4 s of the endless source (1,000 records/s per subtask).
        InjectedFailures failures = InjectedFailures.at(List.of(ENDLESS_FROM + 8_000));
        try (LocalCluster cluster = LocalCluster.builder().build()) {
            StreamExecutionEnvironment env = StreamExecutionEnvironment.create().setParallelism(2)
                    .enableCheckpointing(Duration.ofMillis(200)).setCheckpointDir(dir.toString());
            DataStream<Long> bounded = env.fromSource(SequenceSource.bounded(0, BOUNDED - 1), "bounded");
            DataStream<Long> endless = env.fromSource(SequenceSource.unbounded(ENDLESS_FROM).withRate(2_000), "endless");
            bounded.union(endless)
                    .keyBy(v -> v < ENDLESS_FROM ? v % KEYS : 100 + v % KEYS)
                    .map(new Count(failures)).returns(Serializers.tuple2(Serializers.LONG, Serializers.LONG))
                    .addSink(sink, "counts");
            JobId id = cluster.submit(env.buildJobGraph("bounded union endless"));

            await("checkpoints after the bounded source finished").atMost(Duration.ofSeconds(30)).until(() -> {
                JobDetails d = details(cluster, id);
                return boundedRecords(sink) == BOUNDED && d.checkpoints().completed() >= 3;
            });
            long completedBeforeFailure = details(cluster, id).checkpoints().completed();
            await("the injected failure and the restart").atMost(Duration.ofSeconds(30))
                    .until(() -> failures.thrown() == 1 && details(cluster, id).status() == JobStatus.RUNNING);
            await("checkpoints after the restart").atMost(Duration.ofSeconds(30))
                    .until(() -> details(cluster, id).checkpoints().completed() >= completedBeforeFailure + 3);
            // Endless records keep flowing after the restart; give the bounded source a chance to (wrongly) replay.
            long endlessNow = sink.count();
            await().atMost(Duration.ofSeconds(30)).until(() -> sink.count() >= endlessNow + 2_000);

            JobDetails d = details(cluster, id);
            assertThat(d.restarts()).isEqualTo(1);
            assertThat(boundedRecords(sink)).as("the finished bounded source is not replayed from the start")
                    .isEqualTo(BOUNDED);
            Map<Long, Long> last = CollectingSink.lastValuePerKey(sink.results(), Tuple2::f0, Tuple2::f1);
            for (long k = 0; k < KEYS; k++) {
                assertThat(last.get(k)).as("exact count of bounded key " + k).isEqualTo(BOUNDED / KEYS);
            }
            cluster.dispatcher().cancelJob(id).get(10, TimeUnit.SECONDS);
        } finally {
            sink.release();
            failures.release();
        }
    }

    private static long boundedRecords(CollectingSink<Tuple2<Long, Long>> sink) {
        return sink.results().stream().filter(t -> t.f0() < 100).count();
    }

    private static JobDetails details(LocalCluster cluster, JobId id) throws Exception {
        return cluster.dispatcher().requestJobDetails(id).get(5, TimeUnit.SECONDS);
    }

    /** Counts per key in keyed state; may fail on purpose after updating its state. */
    static final class Count implements MapFunction<Long, Tuple2<Long, Long>>, RichFunction {
        private final InjectedFailures failures;
        private transient ValueState<Long> count;

        Count(InjectedFailures failures) {
            this.failures = failures;
        }

        @Override
        public void open(RuntimeContext context) {
            count = context.getState(new ValueStateDescriptor<>("count", Serializers.LONG));
        }

        @Override
        public Tuple2<Long, Long> map(Long value) {
            Long c = count.value();
            long next = c == null ? 1 : c + 1;
            count.update(next);
            failures.maybeFail(value);
            return new Tuple2<>(value < ENDLESS_FROM ? value % KEYS : 100 + value % KEYS, next);
        }
    }
}
