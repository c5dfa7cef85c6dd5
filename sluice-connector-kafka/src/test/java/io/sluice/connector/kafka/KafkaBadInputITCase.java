package io.sluice.connector.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.sluice.api.StreamExecutionEnvironment;
import io.sluice.api.functions.OutputTag;
import io.sluice.api.sink.CollectingSink;
import io.sluice.cluster.LocalCluster;
import io.sluice.config.RestartStrategyConfig;
import io.sluice.connector.kafka.format.DeserializationErrorPolicy;
import io.sluice.connector.kafka.format.FailedRecord;
import io.sluice.connector.kafka.format.Formats;
import io.sluice.core.serialization.Serializers;
import io.sluice.examples.InjectedFailures;
import io.sluice.graph.JobId;
import io.sluice.job.JobResult;
import io.sluice.job.JobStatus;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the operator sees when the Kafka connector meets bad input or bad settings: an unknown topic, an
 * unreachable bootstrap server, a transaction timeout above the broker's maximum, a transactional-id
 * prefix used by a running job, a record that does not deserialize (under each policy).
 */
@org.junit.jupiter.api.extension.ExtendWith(SharedKafkaBroker.class)
class KafkaBadInputITCase {
    private static KafkaBroker broker;

    @TempDir
    Path dir;

    @BeforeAll
    static void startBroker(KafkaBroker shared) {
        broker = shared;
    }

    /** A reading of the JSON tests. */
    public record Reading(String sensor, long value) {}

    private StreamExecutionEnvironment env() {
        return StreamExecutionEnvironment.create().setParallelism(1).enableCheckpointing(Duration.ofMillis(200))
                .setCheckpointDir(dir.resolve("checkpoints").toString())
                .setRestartStrategy(new RestartStrategyConfig.NoRestart());
    }

    private static JobResult run(StreamExecutionEnvironment env, String name) throws Exception {
        try (LocalCluster cluster = LocalCluster.builder().build()) {
            return cluster.executeAndWait(env.buildJobGraph(name), Duration.ofMinutes(1));
        }
    }

    private static KafkaSink<String> sink(String bootstrap, String topic, String prefix) {
        return KafkaSink.<String>builder().bootstrapServers(bootstrap).topic(topic).valueFormat(Formats.strings())
                .transactionalIdPrefix(prefix).startupTimeout(Duration.ofSeconds(5)).build();
    }

    @Test
    void anUnknownSourceTopicFailsNamingTheTopic() throws Exception {
        String out = KafkaBroker.unique("unknown-out");
        broker.createTopic(out, 1);
        StreamExecutionEnvironment env = env();
        env.fromSource(KafkaCountingJob.source(broker.bootstrapServers(), "no-such-topic"), "in")
                .sinkTo(sink(broker.bootstrapServers(), out, KafkaBroker.unique("x")), "out");
        JobResult result = run(env, "unknown topic");
        assertThat(result.status()).isEqualTo(JobStatus.FAILED);
        assertThat(result.failureMessage()).contains("topic 'no-such-topic'").contains("does not exist")
                .contains("Create it, or correct the topic name");
    }

    @Test
    void anUnknownSinkTopicFailsNamingTheTopic() throws Exception {
        String in = KafkaBroker.unique("bad-sink-in");
        broker.createTopic(in, 1);
        StreamExecutionEnvironment env = env();
        env.fromSource(KafkaCountingJob.source(broker.bootstrapServers(), in), "in")
                .sinkTo(sink(broker.bootstrapServers(), "no-such-output", KafkaBroker.unique("p")), "out");
        JobResult result = run(env, "unknown sink topic");
        assertThat(result.status()).isEqualTo(JobStatus.FAILED);
        assertThat(result.failureMessage()).contains("topic 'no-such-output' does not exist");
    }

    @Test
    void anUnreachableBootstrapServerAtStartFailsWithWhatToCheck() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort(); // closed again: nothing listens there
        }
        String nowhere = "127.0.0.1:" + port;
        String out = KafkaBroker.unique("unreachable-out");
        broker.createTopic(out, 1);
        StreamExecutionEnvironment env = env();
        env.fromSource(KafkaSource.<String>builder().bootstrapServers(nowhere).topics("t").valueFormat(Formats.strings())
                        .startupTimeout(Duration.ofSeconds(2)).build(), "in")
                .sinkTo(sink(broker.bootstrapServers(), out, KafkaBroker.unique("x")), "out");
        JobResult result = run(env, "unreachable");
        assertThat(result.status()).isEqualTo(JobStatus.FAILED);
        assertThat(result.failureMessage()).contains("no broker of " + nowhere + " answered within 2 s")
                .contains("Check bootstrapServers");
    }

    @Test
    void aTransactionTimeoutAboveTheBrokersMaximumFailsAtStartSayingWhatToChange() throws Exception {
        String in = KafkaBroker.unique("tto-in");
        String out = KafkaBroker.unique("tto-out");
        broker.createTopic(in, 1);
        broker.createTopic(out, 1);
        StreamExecutionEnvironment env = env();
        env.fromSource(KafkaCountingJob.source(broker.bootstrapServers(), in), "in")
                .sinkTo(KafkaSink.<String>builder().bootstrapServers(broker.bootstrapServers()).topic(out)
                        .valueFormat(Formats.strings()).transactionalIdPrefix(KafkaBroker.unique("tto"))
                        .transactionTimeout(Duration.ofMinutes(20)).build(), "out");
        JobResult result = run(env, "timeout too long");
        assertThat(result.status()).isEqualTo(JobStatus.FAILED);
        assertThat(result.failureMessage()).contains("transaction timeout 1200000 ms is above the brokers'"
                + " transaction.max.timeout.ms (900000 ms)").contains("at most 900000 ms");
    }

    @Test
    void aPrefixUsedByARunningJobIsRefusedAndTheRunningJobGoesOn() throws Exception {
        String in = KafkaBroker.unique("clash-in");
        String out = KafkaBroker.unique("clash-out");
        String prefix = KafkaBroker.unique("shared-prefix");
        broker.createTopic(in, 1);
        broker.createTopic(out, 1);
        broker.produce(in, KafkaCountingJob.numbers(100));
        try (LocalCluster first = LocalCluster.builder().build()) {
            StreamExecutionEnvironment env = StreamExecutionEnvironment.create().setParallelism(1)
                    .enableCheckpointing(Duration.ofMillis(200)).setCheckpointDir(dir.resolve("a").toString());
            KafkaCountingJob.build(env, KafkaSource.<String>builder().bootstrapServers(broker.bootstrapServers())
                    .topics(in).valueFormat(Formats.strings()).serializer(Serializers.STRING).build(),
                    sink(broker.bootstrapServers(), out, prefix), InjectedFailures.none());
            JobId running = first.submit(env.buildJobGraph("first user of the prefix"));
            await().atMost(Duration.ofSeconds(60)).until(() -> broker.readAll(out, "read_committed").size() >= 100);

            StreamExecutionEnvironment second = env();
            KafkaCountingJob.build(second, KafkaCountingJob.source(broker.bootstrapServers(), in),
                    sink(broker.bootstrapServers(), out, prefix), InjectedFailures.none());
            JobResult refused = run(second, "second user of the prefix");
            assertThat(refused.status()).isEqualTo(JobStatus.FAILED);
            assertThat(refused.failureMessage()).contains("transactional-id prefix '" + prefix + "' is in use by job "
                    + running.value()).contains("Give this sink its own prefix");

            broker.produce(in, KafkaCountingJob.numbers(200).subList(100, 200));
            await().atMost(Duration.ofSeconds(60)).until(() -> broker.readAll(out, "read_committed").size() >= 200);
            assertThat(first.dispatcher().requestJobDetails(running).get(5, TimeUnit.SECONDS).status())
                    .isEqualTo(JobStatus.RUNNING);
            first.dispatcher().cancelJob(running).get(10, TimeUnit.SECONDS);
        }
        KafkaCountingJob.assertExactlyOnce(broker.readAll(out, "read_committed"), 200, "the first job");
    }

    private String topicWithOneBadJsonRecord() throws Exception {
        String topic = KafkaBroker.unique("json");
        broker.createTopic(topic, 1);
        broker.produce(topic, List.of("{\"sensor\":\"a\",\"value\":1}", "{\"sensor\":\"b\",\"value\":2}", "not json",
                "{\"sensor\":\"c\",\"value\":3}"));
        return topic;
    }

    private static KafkaSource<Reading> jsonSource(String topic, DeserializationErrorPolicy policy) {
        return KafkaSource.<Reading>builder().bootstrapServers(broker.bootstrapServers()).topics(topic)
                .valueFormat(Formats.json(Reading.class)).deserializationErrors(policy).boundedToLatest().build();
    }

    @Test
    void anUndeserializableRecordFailsTheJobNamingTopicPartitionAndOffsetByDefault() throws Exception {
        String topic = topicWithOneBadJsonRecord();
        CollectingSink<String> sink = CollectingSink.create();
        try {
            StreamExecutionEnvironment env = env();
            env.fromSource(jsonSource(topic, DeserializationErrorPolicy.fail()), "json")
                    .map(Reading::sensor).returns(Serializers.STRING).addSink(sink, "sensors");
            JobResult result = run(env, "bad json, fail");
            assertThat(result.status()).isEqualTo(JobStatus.FAILED);
            assertThat(result.failureMessage()).contains("topic " + topic + ", partition 0, offset 2")
                    .contains("json(Reading)").contains("deserializationErrors");
        } finally {
            sink.release();
        }
    }

    @Test
    void theSkipPolicyDropsTheRecordAndGoesOn() throws Exception {
        String topic = topicWithOneBadJsonRecord();
        CollectingSink<String> sink = CollectingSink.create();
        try {
            StreamExecutionEnvironment env = env();
            env.fromSource(jsonSource(topic, DeserializationErrorPolicy.skip()), "json")
                    .map(Reading::sensor).returns(Serializers.STRING).addSink(sink, "sensors");
            assertThat(run(env, "bad json, skip").status()).isEqualTo(JobStatus.FINISHED);
            assertThat(sink.results()).containsExactly("a", "b", "c");
        } finally {
            sink.release();
        }
    }

    @Test
    void theSideOutputPolicySendsTheRecordToTheSideOutput() throws Exception {
        String topic = topicWithOneBadJsonRecord();
        OutputTag<FailedRecord> failed = FailedRecord.tag("undeserializable");
        CollectingSink<String> good = CollectingSink.create();
        CollectingSink<FailedRecord> bad = CollectingSink.create();
        try {
            StreamExecutionEnvironment env = env();
            var readings = env.fromSource(jsonSource(topic, DeserializationErrorPolicy.sideOutput(failed)), "json");
            readings.map(Reading::sensor).returns(Serializers.STRING).addSink(good, "sensors");
            readings.getSideOutput(failed).addSink(bad, "dead letters");
            assertThat(run(env, "bad json, side output").status()).isEqualTo(JobStatus.FINISHED);
            assertThat(good.results()).containsExactly("a", "b", "c");
            assertThat(bad.results()).singleElement().satisfies(r -> {
                assertThat(r.topic()).isEqualTo(topic);
                assertThat(r.offset()).isEqualTo(2);
                assertThat(new String(r.value(), java.nio.charset.StandardCharsets.UTF_8)).isEqualTo("not json");
                assertThat(r.error()).contains("JsonParseException");
            });
        } finally {
            good.release();
            bad.release();
        }
    }
}
