package io.sluice.network.netty;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.sluice.config.SecurityOptions.TlsProvider;
import io.sluice.core.serialization.DataInputBuffer;
import io.sluice.core.serialization.Serializers;
import io.sluice.graph.JobId;
import io.sluice.network.Buffer;
import io.sluice.network.ChannelKey;
import io.sluice.network.EndOfPartition;
import io.sluice.network.LocalChannel;
import io.sluice.network.Partitioner;
import io.sluice.network.RecordWriter;
import io.sluice.security.tls.InternalTls;
import io.sluice.testing.tls.TestCertificates;
import io.sluice.testing.tls.TestCertificates.Authority;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Mutual TLS on the data connections between task executors, over loopback with certificates made
 * by the test: records cross in order between two environments of the cluster's CA; a consumer
 * without TLS, or with a certificate of another CA, gets no data and its channel is released.
 */
@Timeout(60)
class DataExchangeTlsTest {
    private static final JobId JOB = JobId.of("0123456789abcdef0123456789abcdef");
    private static final ChannelKey KEY = new ChannelKey(JOB, 0, 1, 0, 0);
    private static final Duration WAIT = Duration.ofSeconds(20);
    private static final Authority CLUSTER = TestCertificates.authority("Sluice test cluster CA");

    @TempDir
    Path dir;

    private final List<AutoCloseable> toClose = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (AutoCloseable c : toClose) {
            c.close();
        }
    }

    private NettyShuffleEnvironment environment(String name, InternalTls tls) {
        NettyShuffleEnvironment env = NettyShuffleEnvironment.start(name, "127.0.0.1", "127.0.0.1", 0, 2, 256, 1, tls);
        toClose.add(env);
        return env;
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = TlsProvider.class, names = {"JDK", "OPENSSL"})
    void recordsCrossInOrderBetweenTaskExecutorsOfTheCluster(TlsProvider provider) throws Exception {
        InternalTls producerTls = CLUSTER.issue("tm-1", dir.resolve("tm-1")).internalTls(provider);
        InternalTls consumerTls = CLUSTER.issue("tm-2", dir.resolve("tm-2")).internalTls(provider);
        NettyShuffleEnvironment producerSide = environment("producer", producerTls);
        NettyShuffleEnvironment consumerSide = environment("consumer", consumerTls);
        io.sluice.network.InputGate gate = new io.sluice.network.InputGate("consumer",
                List.of(consumerSide.remoteInputChannel(KEY, producerSide.dataAddress())));
        RecordWriter<Long> writer = new RecordWriter<>(List.of(producerSide.remoteOutputChannel(KEY)), Serializers.LONG,
                Partitioner.forward(), 256);
        Thread producer = new Thread(() -> {
            try {
                for (long i = 0; i < 20_000; i++) {
                    writer.emit(i);
                }
                writer.close();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }, "producer");
        producer.start();

        long expected = 0;
        DataInputBuffer input = new DataInputBuffer();
        while (true) {
            Buffer buffer = gate.pollNext().buffer();
            if (buffer.isEvent()) {
                assertThat(buffer.event()).isEqualTo(EndOfPartition.INSTANCE);
                break;
            }
            input.reset(buffer.data(), 0, buffer.length());
            while (input.hasRemaining()) {
                assertThat(Serializers.LONG.deserialize(input)).isEqualTo(expected++);
            }
            buffer.recycle();
        }
        producer.join();
        assertThat(expected).isEqualTo(20_000);
        assertThat(producerTls.handshakesCompleted()).isEqualTo(1);
        assertThat(consumerTls.handshakesCompleted()).isEqualTo(1);
        assertThat(producerSide.metrics().bytesSent()).isEqualTo(consumerSide.metrics().bytesReceived()).isPositive();
    }

    @Test
    void aConsumerWithoutTlsGetsNoDataAndItsChannelIsReleased() {
        InternalTls producerTls = CLUSTER.issue("tm-1", dir).internalTls(TlsProvider.AUTO);
        NettyShuffleEnvironment producerSide = environment("producer", producerTls);
        producerSide.remoteOutputChannel(KEY);
        NettyShuffleEnvironment plain = environment("plain", null);

        LocalChannel in = plain.remoteInputChannel(KEY, producerSide.dataAddress());

        await().atMost(WAIT).until(in::isReleased);
        assertThat(in.releaseCause()).isInstanceOf(RemoteChannelException.class)
                .hasMessageContaining(producerSide.dataAddress());
        await().atMost(WAIT).until(() -> producerTls.handshakesFailed() == 1);
        assertThat(producerSide.metrics().buffersSent()).isZero();
    }

    @Test
    void aConsumerWithACertificateOfAnotherCaGetsNoDataAndItsChannelIsReleasedSayingWhy() {
        InternalTls producerTls = CLUSTER.issue("tm-1", dir.resolve("tm-1")).internalTls(TlsProvider.AUTO);
        NettyShuffleEnvironment producerSide = environment("producer", producerTls);
        producerSide.remoteOutputChannel(KEY);
        InternalTls foreignTls = TestCertificates.authority("Some other CA").issue("intruder", dir.resolve("x"))
                .internalTls(TlsProvider.AUTO);
        NettyShuffleEnvironment intruder = environment("intruder", foreignTls);

        LocalChannel in = intruder.remoteInputChannel(KEY, producerSide.dataAddress());

        await().atMost(WAIT).until(in::isReleased);
        assertThat(in.releaseCause()).isInstanceOf(RemoteChannelException.class)
                .hasMessageContaining("TLS with 127.0.0.1");
        assertThat(producerSide.metrics().buffersSent()).isZero();
    }
}
