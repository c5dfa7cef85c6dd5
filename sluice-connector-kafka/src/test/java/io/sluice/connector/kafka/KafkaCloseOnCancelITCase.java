package io.sluice.connector.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.sluice.api.functions.FakeRuntimeContext;
import io.sluice.api.source.SourceReader;
import io.sluice.connector.kafka.format.Formats;
import io.sluice.core.serialization.DataOutputBuffer;
import io.sluice.core.serialization.Serializers;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.slf4j.LoggerFactory;

/**
 * A cancelled task is interrupted and then closes its Kafka source reader and sink on that thread. Before,
 * the source reader's close logged an error with a stack trace ("Failed to close fetcher") and then threw
 * {@code InterruptException} out of the consumer's close, at every cancel of a job that reads Kafka (the
 * first test failed so); the producers' close threw it too (the sink logged it at debug; their I/O
 * threads ended all the same, which the second test checks). Now both close quietly, and the thread is
 * still marked interrupted afterwards.
 */
@ExtendWith(SharedKafkaBroker.class)
class KafkaCloseOnCancelITCase {
    private static KafkaBroker broker;
    private final ListAppender<ILoggingEvent> logged = new ListAppender<>();
    private final Logger kafkaLogger = (Logger) LoggerFactory.getLogger("org.apache.kafka");

    @BeforeAll
    static void startBroker(KafkaBroker shared) {
        broker = shared;
    }

    @BeforeEach
    void captureKafkaLogs() {
        logged.start();
        kafkaLogger.addAppender(logged);
    }

    @AfterEach
    void stopCapturing() {
        kafkaLogger.detachAppender(logged);
        Thread.interrupted(); // never leave the flag to the next test
    }

    private List<String> errors() {
        return logged.list.stream().filter(e -> e.getLevel().isGreaterOrEqual(Level.ERROR))
                .map(ILoggingEvent::getFormattedMessage).toList();
    }

    @Test
    void aSourceReaderClosedOnAnInterruptedThreadLogsNoErrorAndKeepsTheInterrupt() throws Exception {
        String topic = KafkaBroker.unique("close-in");
        broker.createTopic(topic, 2);
        broker.produce(topic, List.of("a", "b", "c"));
        SourceReader<String> reader = KafkaSource.<String>builder().bootstrapServers(broker.bootstrapServers())
                .topics(topic).valueFormat(Formats.strings()).serializer(Serializers.STRING).build()
                .createReader(0, 1);
        RecordingOutput<String> out = new RecordingOutput<>();
        await().atMost(Duration.ofSeconds(30)).until(() -> {
            reader.emit(out, 10);
            return out.records.size() == 3;
        });

        Thread.currentThread().interrupt(); // as a task's cancel does before the task closes its reader
        reader.close();

        assertThat(Thread.currentThread().isInterrupted()).as("the task still sees its interrupt").isTrue();
        assertThat(errors()).as("errors Kafka's consumer logged while closing").isEmpty();
    }

    @Test
    void aCommitterClosedOnAnInterruptedThreadEndsItsProducersIoThread() throws Exception {
        String topic = KafkaBroker.unique("close-out");
        String prefix = KafkaBroker.unique("close");
        broker.createTopic(topic, 2);
        KafkaSink<String> sink = KafkaSink.<String>builder().bootstrapServers(broker.bootstrapServers()).topic(topic)
                .valueFormat(Formats.strings()).transactionalIdPrefix(prefix).startupTimeout(Duration.ofSeconds(10))
                .build();
        TransactionalKafkaCommitter committer = new TransactionalKafkaCommitter(sink, new FakeRuntimeContext(0, 1));
        DataOutputBuffer batch = new DataOutputBuffer(64);
        batch.writeBytes(null);
        batch.writeBytes("x".getBytes(StandardCharsets.UTF_8));
        committer.commit(new KafkaCommittable(0, 1, "job", 1, batch.toByteArray()));
        String ioThread = "kafka-producer-network-thread | " + prefix + "-0";
        assertThat(threadAlive(ioThread)).isTrue();

        Thread.currentThread().interrupt();
        committer.close();

        assertThat(Thread.currentThread().isInterrupted()).isTrue();
        Thread.interrupted();
        await().atMost(Duration.ofSeconds(10)).until(() -> !threadAlive(ioThread));
        assertThat(broker.readAll(topic, "read_committed")).containsExactly("x");
    }

    private static boolean threadAlive(String name) {
        return Thread.getAllStackTraces().keySet().stream().anyMatch(t -> t.getName().equals(name) && t.isAlive());
    }
}
