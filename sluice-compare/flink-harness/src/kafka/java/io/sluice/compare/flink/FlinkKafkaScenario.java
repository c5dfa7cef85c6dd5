package io.sluice.compare.flink;

import io.sluice.compare.Plan;
import io.sluice.compare.Results;
import io.sluice.compare.kafka.KafkaRecords;
import io.sluice.compare.kafka.KafkaScenario;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.function.Consumer;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.api.common.serialization.SerializationSchema;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.api.common.typeinfo.PrimitiveArrayTypeInfo;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.connector.base.DeliveryGuarantee;
import org.apache.flink.connector.kafka.sink.KafkaRecordSerializationSchema;
import org.apache.flink.connector.kafka.sink.KafkaSink;
import org.apache.flink.connector.kafka.source.KafkaSource;
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.apache.flink.connector.kafka.source.reader.deserializer.KafkaRecordDeserializationSchema;
import org.apache.flink.runtime.jobgraph.JobGraph;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * {@link io.sluice.compare.Scenario#KAFKA_EXACTLY_ONCE} on Flink 1.20 and 2.x with flink-connector-kafka:
 * {@link KafkaScenario} (broker, load, visibility, exactly-once check: the same code as Sluice's harness)
 * around this job on a MiniCluster of 1 task manager with 2 slots: {@code KafkaSource<byte[]>} (value only,
 * earliest, {@code read_committed}, no offset commits to Kafka), {@code keyBy(v % keys)} with a {@code Long}
 * key, a map counting per key in {@code ValueState<Long>} emitting {@link KafkaRecords#output}, and
 * {@code KafkaSink<byte[]>} with {@code DeliveryGuarantee.EXACTLY_ONCE} ({@link SinkTuning} has what
 * differs between connector versions). Tuned as for the counting job: heap state backend, object reuse,
 * aligned checkpoints every second; the sink's {@code transaction.timeout.ms} at the broker's maximum
 * (15 min), above checkpoint interval plus restart time as the connector's documentation asks.
 *
 * <p>Threading: harness thread; the functions run on their task threads.
 */
public final class FlinkKafkaScenario implements OptionalScenario {
    static final String DESCRIPTION = "MiniCluster 1 task manager x 2 slots, parallelism 2; KafkaSource<byte[]>"
            + " (valueOnly(ByteArrayDeserializer), earliest, isolation.level=read_committed,"
            + " commit.offsets.on.checkpoint=false) -> keyBy(v % keys, Types.LONG) -> map counting per key in"
            + " ValueState<Long> -> KafkaSink<byte[]> EXACTLY_ONCE, transaction.timeout.ms=900000, "
            + SinkTuning.DESCRIPTION + "; state.backend.type=hashmap, pipeline.object-reuse=true, checkpoints every"
            + " second to file://";

    @Override
    public void run(Plan plan, Results results, Configuration clusterConfiguration, Consumer<String> log)
            throws Exception {
        results.header("kafka-job", DESCRIPTION);
        KafkaScenario.describe(results, plan);
        Path dir = Files.createTempDirectory("flink-compare-kafka");
        try (FlinkCluster cluster = FlinkCluster.start(clusterConfiguration)) {
            KafkaScenario.run(plan, (bootstrap, in, out, prefix, keys, interval) -> {
                JobID id = cluster.submit(job(bootstrap, in, out, prefix, keys, interval, dir));
                cluster.awaitStatus(id, JobStatus.RUNNING, Duration.ofSeconds(60));
                return () -> cluster.cancel(id);
            }, results, log);
        }
    }

    static JobGraph job(String bootstrap, String in, String out, String prefix, int keys, Duration interval,
                        Path checkpointDir) {
        Configuration c = new Configuration();
        c.set(CheckpointingOptions.CHECKPOINTING_INTERVAL, interval);
        c.set(CheckpointingOptions.CHECKPOINTS_DIRECTORY, checkpointDir.toUri().toString());
        c.set(StateBackendOptions.STATE_BACKEND, "hashmap");
        c.set(PipelineOptions.OBJECT_REUSE, true);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(c);
        env.setParallelism(2);
        KafkaSource<byte[]> source = KafkaSource.<byte[]>builder().setBootstrapServers(bootstrap).setTopics(in)
                .setStartingOffsets(OffsetsInitializer.earliest())
                .setDeserializer(KafkaRecordDeserializationSchema.valueOnly(ByteArrayDeserializer.class))
                .setProperty("isolation.level", "read_committed")
                .setProperty("commit.offsets.on.checkpoint", "false")
                .build();
        KafkaSink<byte[]> sink = SinkTuning.apply(KafkaSink.<byte[]>builder().setBootstrapServers(bootstrap)
                .setRecordSerializer(KafkaRecordSerializationSchema.<byte[]>builder().setTopic(out)
                        .setValueSerializationSchema(new Bytes()).build())
                .setDeliveryGuarantee(DeliveryGuarantee.EXACTLY_ONCE)
                .setTransactionalIdPrefix(prefix)
                .setProperty("transaction.timeout.ms", "900000")).build();
        env.fromSource(source, WatermarkStrategy.noWatermarks(), "kafka input")
                .keyBy(new InputKey(keys), Types.LONG)
                .map(new CountToOutput(keys)).name("count per key")
                .returns(PrimitiveArrayTypeInfo.BYTE_PRIMITIVE_ARRAY_TYPE_INFO)
                .sinkTo(sink).name("kafka output");
        return env.getStreamGraph().getJobGraph();
    }

    /** The key of an input record. */
    static final class InputKey implements KeySelector<byte[], Long> {
        private static final long serialVersionUID = 1L;
        private final int keys;

        InputKey(int keys) {
            this.keys = keys;
        }

        @Override
        public Long getKey(byte[] value) {
            return KafkaRecords.key(value, keys);
        }
    }

    /** The output value as it is. */
    static final class Bytes implements SerializationSchema<byte[]> {
        private static final long serialVersionUID = 1L;

        @Override
        public byte[] serialize(byte[] element) {
            return element;
        }
    }

    /**
     * Counts per key in keyed state and emits {@link KafkaRecords#output}; the state handle is taken on
     * the first record (as {@link CountPerKey}: {@code open}'s signature differs between 1.x and 2.x).
     */
    static final class CountToOutput extends RichMapFunction<byte[], byte[]> {
        private static final long serialVersionUID = 1L;
        private final int keys;
        private transient ValueState<Long> count;

        CountToOutput(int keys) {
            this.keys = keys;
        }

        @Override
        public byte[] map(byte[] value) throws Exception {
            if (count == null) {
                count = getRuntimeContext().getState(new ValueStateDescriptor<>("count", Types.LONG));
            }
            Long c = count.value();
            long next = c == null ? 1L : c + 1;
            count.update(next);
            return KafkaRecords.output(value, keys, next);
        }
    }
}
