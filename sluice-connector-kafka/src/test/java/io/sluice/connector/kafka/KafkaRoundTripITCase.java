package io.sluice.connector.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.api.StreamExecutionEnvironment;
import io.sluice.cluster.LocalCluster;
import io.sluice.config.RestartStrategyConfig;
import io.sluice.connector.kafka.format.Formats;
import io.sluice.examples.InjectedFailures;
import io.sluice.job.JobResult;
import io.sluice.job.JobStatus;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Kafka → keyed count → Kafka on a real broker, without failures: the plain path works end to end. */
@org.junit.jupiter.api.extension.ExtendWith(SharedKafkaBroker.class)
class KafkaRoundTripITCase {
    private static KafkaBroker broker;

    @TempDir
    Path dir;

    @BeforeAll
    static void startBroker(KafkaBroker shared) {
        broker = shared;
    }

    @Test
    void exactlyOnceRoundTrip() throws Exception {
        int records = 2_000;
        String in = KafkaBroker.unique("rt-in");
        String out = KafkaBroker.unique("rt-out");
        broker.createTopic(in, 4);
        broker.createTopic(out, 3);
        broker.produce(in, KafkaCountingJob.numbers(records));
        try (LocalCluster cluster = LocalCluster.builder().build()) {
            StreamExecutionEnvironment env = StreamExecutionEnvironment.create().setParallelism(2)
                    .enableCheckpointing(Duration.ofMillis(100))
                    .setCheckpointDir(dir.resolve("checkpoints").toString())
                    .setRestartStrategy(new RestartStrategyConfig.FixedDelay(3, Duration.ofMillis(100)));
            KafkaCountingJob.build(env, KafkaCountingJob.source(broker.bootstrapServers(), in),
                    KafkaSink.<String>builder().bootstrapServers(broker.bootstrapServers()).topic(out)
                            .valueFormat(Formats.strings()).transactionalIdPrefix(KafkaBroker.unique("rt")).build(),
                    InjectedFailures.none());
            JobResult result = cluster.executeAndWait(env.buildJobGraph("kafka round trip"), Duration.ofMinutes(1));
            assertThat(result.status()).as(String.valueOf(result.failureMessage())).isEqualTo(JobStatus.FINISHED);
        }
        List<String> committed = broker.readAll(out, "read_committed");
        KafkaCountingJob.assertExactlyOnce(committed, records, "round trip");
    }
}
