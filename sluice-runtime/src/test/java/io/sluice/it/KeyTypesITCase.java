package io.sluice.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.api.DataStream;
import io.sluice.api.KeyedStream;
import io.sluice.api.StreamExecutionEnvironment;
import io.sluice.api.tuple.Tuple2;
import io.sluice.api.functions.KeySelector;
import io.sluice.api.functions.MapFunction;
import io.sluice.api.functions.RichFunction;
import io.sluice.api.functions.RuntimeContext;
import io.sluice.api.sink.CollectingSink;
import io.sluice.api.source.SequenceSource;
import io.sluice.api.state.ValueState;
import io.sluice.api.state.ValueStateDescriptor;
import io.sluice.cluster.LocalCluster;
import io.sluice.config.RestartStrategyConfig;
import io.sluice.core.serialization.Serializers;
import io.sluice.core.serialization.TypeSerializer;
import io.sluice.examples.InjectedFailures;
import io.sluice.api.errors.InvalidJobException;
import io.sluice.graph.JobId;
import io.sluice.protocol.JobDetails;
import io.sluice.job.JobResult;
import io.sluice.job.JobStatus;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code keyBy} on an enum, a UUID and a record, with the default key serializer and with a
 * declared one: checkpoints complete, a task failure after them restores the keyed state, and the
 * final counts are exact. A key type no serializer handles is rejected when the graph is built.
 */
class KeyTypesITCase {
    private static final long RECORDS = 30_000;
    private static final Map<String, AtomicLong> RESTORED_KEYS = new ConcurrentHashMap<>();
    private static LocalCluster cluster;

    @TempDir
    static Path checkpoints;

    enum Color { RED, GREEN, BLUE, YELLOW }

    public record Sensor(String site, Color color) {}

    /** A class no built-in serializer handles. */
    static final class Opaque {
        final long id;

        Opaque(long id) {
            this.id = id;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Opaque other && other.id == id;
        }

        @Override
        public int hashCode() {
            return Long.hashCode(id);
        }
    }

    @BeforeAll
    static void start() {
        cluster = LocalCluster.builder().taskExecutors(1).slotsPerTaskExecutor(2).build();
    }

    @AfterAll
    static void stop() {
        cluster.close();
    }

    @Test
    void enumKeys() throws Exception {
        run("enum", v -> Color.values()[(int) (v % 4)], null);
    }

    @Test
    void uuidKeys() throws Exception {
        run("uuid", v -> new UUID(42, v % 7), null);
    }

    @Test
    void recordKeysWithAnEnumComponent() throws Exception {
        run("record", v -> new Sensor("site-" + (v % 3), Color.values()[(int) (v % 2)]), null);
    }

    @Test
    void declaredKeySerializers() throws Exception {
        run("declared enum", v -> Color.values()[(int) (v % 4)], Serializers.enumOf(Color.class));
        run("declared uuid", v -> new UUID(7, v % 5), Serializers.UUID);
        run("declared record", v -> new Sensor("s" + (v % 5), Color.RED), Serializers.record(Sensor.class));
    }

    @Test
    void aKeyTypeWithoutSerializerIsRejectedWhenTheGraphIsBuilt() {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.create();
        env.fromSource(SequenceSource.bounded(0, 10), "numbers")
                .keyBy((Long v) -> new Opaque(v))
                .map(v -> v).name("opaque counter")
                .addSink(CollectingSink.<Long>create(), "out");
        assertThatThrownBy(() -> env.buildJobGraph("opaque keys"))
                .isInstanceOf(InvalidJobException.class)
                .hasMessageContaining("'opaque counter'")
                .hasMessageContaining(Opaque.class.getName())
                .hasMessageContaining("keyBy(selector, TypeSerializer)");
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private <K> void run(String name, KeySelector<Long, K> keyOf, TypeSerializer<K> keySerializer) throws Exception {
        InjectedFailures plan = InjectedFailures.at(Set.of(RECORDS / 2));
        CollectingSink<Tuple2<Object, Long>> sink = CollectingSink.create();
        RESTORED_KEYS.put(name, new AtomicLong());
        try {
            StreamExecutionEnvironment env = StreamExecutionEnvironment.create().setParallelism(2)
                    .enableCheckpointing(Duration.ofMillis(20))
                    .setCheckpointDir(checkpoints.resolve(name.replace(' ', '-')).toString())
                    .setRestartStrategy(new RestartStrategyConfig.FixedDelay(3, Duration.ZERO));
            DataStream<Long> numbers = env.fromSource(SequenceSource.bounded(0, RECORDS - 1).withRate(20_000), "numbers");
            KeyedStream<Long, K> keyed = keySerializer == null ? numbers.keyBy(keyOf) : numbers.keyBy(keyOf, keySerializer);
            keyed.map(new CountPerKey<>(keyOf, plan, name)).name("count " + name)
                    .addSink(sink, "results");
            JobId id = cluster.submit(env.buildJobGraph("keys: " + name));
            JobResult result = cluster.dispatcher().requestJobResult(id).get(2, TimeUnit.MINUTES);
            assertThat(result.status()).as("%s: %s", name, result.failureStackTrace()).isEqualTo(JobStatus.FINISHED);

            Map<Object, Long> expected = new HashMap<>();
            for (long v = 0; v < RECORDS; v++) {
                expected.merge(keyOf.getKey(v), 1L, Long::sum);
            }
            Map<Object, Long> last = CollectingSink.lastValuePerKey(sink.results(), Tuple2::f0, Tuple2::f1);
            assertThat(last).as(name).isEqualTo(expected);
            JobDetails details = cluster.dispatcher().requestJobDetails(id).get(10, TimeUnit.SECONDS);
            assertThat(plan.thrown()).isEqualTo(1);
            assertThat(details.checkpoints().completed()).as("%s: checkpoints completed", name).isPositive();
            assertThat(details.checkpoints().failed()).as("%s: checkpoints failed", name).isZero();
            assertThat(RESTORED_KEYS.get(name).get()).as("%s: keys restored from a checkpoint", name).isPositive();
        } finally {
            plan.release();
            sink.release();
        }
    }

    /** Counts per key; counts, per subtask attempt, the keys whose state came from a checkpoint. */
    static final class CountPerKey<K> implements MapFunction<Long, Tuple2<Object, Long>>, RichFunction {
        private final KeySelector<Long, K> keyOf;
        private final InjectedFailures failures;
        private final String name;
        private transient ValueState<Long> count;
        private transient Set<Object> seen;

        CountPerKey(KeySelector<Long, K> keyOf, InjectedFailures failures, String name) {
            this.keyOf = keyOf;
            this.failures = failures;
            this.name = name;
        }

        @Override
        public void open(RuntimeContext context) {
            count = context.getState(new ValueStateDescriptor<>("count", Serializers.LONG));
            seen = new HashSet<>();
        }

        @Override
        public Tuple2<Object, Long> map(Long value) throws Exception {
            K key = keyOf.getKey(value);
            Long c = count.value();
            if (seen.add(key) && c != null) {
                RESTORED_KEYS.get(name).incrementAndGet();
            }
            long next = c == null ? 1 : c + 1;
            count.update(next);
            failures.maybeFail(value);
            return Tuple2.of(key, next);
        }
    }
}
