package io.sluice.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.api.DataStream;
import io.sluice.api.StreamExecutionEnvironment;
import io.sluice.api.tuple.Tuple2;
import io.sluice.api.tuple.Tuple3;
import io.sluice.api.functions.Collector;
import io.sluice.api.functions.FlatMapFunction;
import io.sluice.api.functions.RichFunction;
import io.sluice.api.functions.RuntimeContext;
import io.sluice.api.sink.CollectingSink;
import io.sluice.api.source.SequenceSource;
import io.sluice.api.state.ListState;
import io.sluice.api.state.ListStateDescriptor;
import io.sluice.api.state.MapState;
import io.sluice.api.state.MapStateDescriptor;
import io.sluice.cluster.LocalCluster;
import io.sluice.config.RestartStrategyConfig;
import io.sluice.core.serialization.Serializers;
import io.sluice.examples.InjectedFailures;
import io.sluice.job.JobResult;
import io.sluice.job.JobStatus;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * ListState, MapState and a keyed reduce keep exact state through task failures, in a job whose
 * keyed tasks read from two unioned sources (so barriers are aligned over several inputs).
 */
class KeyedStateTypesITCase {
    private static final int KEYS = 8;
    private static final long PER_SOURCE = 15_000;

    @TempDir
    Path dir;

    @Test
    void listMapAndReduceStateAreExactAfterFailures() throws Exception {
        InjectedFailures failures = InjectedFailures.at(List.of(3_000L, 17_500L, 26_000L));
        CollectingSink<Tuple3<Long, Long, Long>> listAndMap = CollectingSink.create();
        CollectingSink<Tuple2<Long, Long>> sums = CollectingSink.create();
        try (LocalCluster cluster = LocalCluster.builder().build()) {
            StreamExecutionEnvironment env = StreamExecutionEnvironment.create().setParallelism(2)
                    .enableCheckpointing(Duration.ofMillis(15)).setCheckpointDir(dir.toString())
                    .setRestartStrategy(new RestartStrategyConfig.FixedDelay(10, Duration.ofMillis(5)));
            DataStream<Long> low = env.fromSource(SequenceSource.bounded(0, PER_SOURCE - 1).withRate(20_000), "low");
            DataStream<Long> high = env.fromSource(
                    SequenceSource.bounded(PER_SOURCE, 2 * PER_SOURCE - 1).withRate(20_000), "high");
            DataStream<Long> all = low.union(high);
            all.keyBy(v -> v % KEYS)
                    .flatMap(new ListAndMapState(failures)).name("list and map state")
                    .addSink(listAndMap, "list and map");
            all.map(v -> Tuple2.of(v % KEYS, v)).returns(Serializers.tuple2(Serializers.LONG, Serializers.LONG))
                    .keyBy(Tuple2::f0)
                    .reduce((a, b) -> Tuple2.of(a.f0(), a.f1() + b.f1())).name("sum")
                    .addSink(sums, "sums");

            JobResult result = cluster.executeAndWait(env.buildJobGraph("state types"), Duration.ofMinutes(2));
            assertThat(result.status()).as(String.valueOf(result.failureStackTrace())).isEqualTo(JobStatus.FINISHED);
            assertThat(failures.thrown()).isEqualTo(3);

            Map<Long, Long> expectedCount = new HashMap<>();
            Map<Long, Long> expectedSum = new HashMap<>();
            Map<Long, Set<Long>> expectedBuckets = new HashMap<>();
            for (long v = 0; v < 2 * PER_SOURCE; v++) {
                long k = v % KEYS;
                expectedCount.merge(k, 1L, Long::sum);
                expectedSum.merge(k, v, Long::sum);
                expectedBuckets.computeIfAbsent(k, x -> new HashSet<>()).add(v / 1000);
            }
            Map<Long, Tuple3<Long, Long, Long>> last = CollectingSink.lastValuePerKey(listAndMap.results(), Tuple3::f0, t -> t);
            assertThat(last).hasSize(KEYS);
            last.forEach((k, t) -> {
                assertThat(t.f1()).as("list size (records) of key %d", k).isEqualTo(expectedCount.get(k));
                assertThat(t.f2()).as("distinct buckets in map state of key %d", k).isEqualTo((long) expectedBuckets.get(k).size());
            });
            Map<Long, Long> lastSum = CollectingSink.lastValuePerKey(sums.results(), Tuple2::f0, Tuple2::f1);
            assertThat(lastSum).as("reduce: sum per key").isEqualTo(expectedSum);
        } finally {
            failures.release();
            listAndMap.release();
            sums.release();
        }
    }

    /** Keeps every value in ListState and a per-bucket count in MapState; emits (key, list size, buckets). */
    static final class ListAndMapState implements FlatMapFunction<Long, Tuple3<Long, Long, Long>>, RichFunction {
        private final InjectedFailures failures;
        private transient ListState<Long> values;
        private transient MapState<Long, Long> buckets;

        ListAndMapState(InjectedFailures failures) {
            this.failures = failures;
        }

        @Override
        public void open(RuntimeContext context) {
            values = context.getListState(new ListStateDescriptor<>("values", Serializers.LONG));
            buckets = context.getMapState(new MapStateDescriptor<>("buckets", Serializers.LONG, Serializers.LONG));
        }

        @Override
        public void flatMap(Long value, Collector<Tuple3<Long, Long, Long>> out) {
            values.add(value);
            Long c = buckets.get(value / 1000);
            buckets.put(value / 1000, c == null ? 1 : c + 1);
            failures.maybeFail(value);
            long size = 0;
            for (Long ignored : values.get()) {
                size++;
            }
            long distinct = 0;
            for (Long ignored : buckets.keys()) {
                distinct++;
            }
            out.collect(Tuple3.of(value % KEYS, size, distinct));
        }
    }

}
