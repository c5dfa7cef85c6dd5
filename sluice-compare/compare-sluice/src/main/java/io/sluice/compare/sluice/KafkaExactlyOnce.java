package io.sluice.compare.sluice;

import io.sluice.api.StreamExecutionEnvironment;
import io.sluice.api.functions.KeySelector;
import io.sluice.api.functions.MapFunction;
import io.sluice.api.functions.RichFunction;
import io.sluice.api.functions.RuntimeContext;
import io.sluice.api.state.ValueState;
import io.sluice.api.state.ValueStateDescriptor;
import io.sluice.cluster.LocalCluster;
import io.sluice.compare.Results;
import io.sluice.compare.Scenario;
import io.sluice.compare.kafka.KafkaRecords;
import io.sluice.compare.kafka.KafkaScenario;
import io.sluice.connector.kafka.KafkaSink;
import io.sluice.connector.kafka.KafkaSource;
import io.sluice.connector.kafka.format.Formats;
import io.sluice.core.serialization.Serializers;
import io.sluice.graph.JobGraph;
import io.sluice.graph.JobId;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

/**
 * {@link Scenario#KAFKA_EXACTLY_ONCE} on Sluice: {@link KafkaScenario} (broker, load, visibility and the
 * exactly-once check, shared with the Flink harnesses) around this job on a {@link LocalCluster} of 2 task
 * executors × 1 slot (HA in memory, checkpoints on local disk): {@code KafkaSource} (bytes, from the earliest
 * offset, {@code read_committed}), {@code keyBy(v % keys)} with a {@code Long} key, a map counting per key in
 * {@code ValueState<Long>} and emitting {@link KafkaRecords#output}, and the exactly-once {@code KafkaSink}
 * (defaults: a fixed pool of transactional ids; each checkpoint interval's records are sent into an open
 * transaction while they arrive, and that transaction is committed when the checkpoint completes).
 * Everything at Sluice's defaults except the checkpoint interval.
 *
 * <p>Threading: harness thread; the functions run on their task threads.
 */
final class KafkaExactlyOnce implements ScenarioRunner {
    static final String DESCRIPTION = "LocalCluster 2 task executors x 1 slot, parallelism 2; KafkaSource<byte[]>"
            + " (Formats.bytes(), earliest, read_committed, defaults) -> keyBy(v % keys, Long) -> map counting per key"
            + " in ValueState<Long> -> KafkaSink<byte[]> EXACTLY_ONCE (defaults: transaction timeout 15 min; records"
            + " sent into an open transaction per checkpoint interval, two transactional ids per subtask used in turn"
            + " and one for writing a restored batch again); checkpoints every second to local disk";

    @Override
    public void run(HarnessContext context, Results rows, Map<String, String> notes) throws Exception {
        Path dir = context.newDir("kafka");
        notes.put("kafka-job", DESCRIPTION);
        try (LocalCluster cluster = LocalCluster.builder().taskExecutors(2).slotsPerTaskExecutor(1).build()) {
            KafkaScenario.run(context.plan(), (bootstrap, in, out, prefix, keys, interval) -> {
                JobId id = cluster.submit(job(bootstrap, in, out, prefix, keys, interval, dir));
                return () -> Throughput.cancel(cluster.dispatcher(), id);
            }, rows, line -> context.progress().line(Scenario.KAFKA_EXACTLY_ONCE.id(), "", "%s", line));
        }
    }

    static JobGraph job(String bootstrap, String in, String out, String prefix, int keys, Duration interval,
                        Path checkpointDir) {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.create().setParallelism(Jobs.PARALLELISM)
                .enableCheckpointing(interval).setCheckpointDir(checkpointDir.toString());
        KafkaSource<byte[]> source = KafkaSource.<byte[]>builder().bootstrapServers(bootstrap).topics(in)
                .valueFormat(Formats.bytes()).serializer(Serializers.BYTES).build();
        KafkaSink<byte[]> sink = KafkaSink.<byte[]>builder().bootstrapServers(bootstrap).topic(out)
                .valueFormat(Formats.bytes()).transactionalIdPrefix(prefix).build();
        env.fromSource(source, "kafka input")
                .keyBy(new InputKey(keys), Serializers.LONG)
                .map(new CountToOutput(keys)).name("count per key").returns(Serializers.BYTES)
                .sinkTo(sink, "kafka output");
        return env.buildJobGraph("kafka keyed count");
    }

    /** The key of an input record: {@link KafkaRecords#key}. */
    record InputKey(int keys) implements KeySelector<byte[], Long> {
        @Override
        public Long getKey(byte[] value) {
            return KafkaRecords.key(value, keys);
        }
    }

    /** Counts per key in keyed state and emits {@link KafkaRecords#output}. Task thread only. */
    static final class CountToOutput implements MapFunction<byte[], byte[]>, RichFunction {
        private static final long serialVersionUID = 1L;
        private final int keys;
        private transient ValueState<Long> count;

        CountToOutput(int keys) {
            this.keys = keys;
        }

        @Override
        public void open(RuntimeContext context) {
            count = context.getState(new ValueStateDescriptor<>("count", Serializers.LONG));
        }

        @Override
        public byte[] map(byte[] value) {
            Long c = count.value();
            long next = c == null ? 1L : c + 1;
            count.update(next);
            return KafkaRecords.output(value, keys, next);
        }
    }
}
