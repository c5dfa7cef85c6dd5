package io.sluice.network.netty;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.sluice.core.serialization.DataInputBuffer;
import io.sluice.core.serialization.Serializers;
import io.sluice.graph.JobId;
import io.sluice.network.Buffer;
import io.sluice.network.BufferOrEvent;
import io.sluice.network.ChannelKey;
import io.sluice.network.ChannelReleasedException;
import io.sluice.network.CheckpointBarrier;
import io.sluice.network.EndOfPartition;
import io.sluice.network.IdleStatus;
import io.sluice.network.InputGate;
import io.sluice.network.LocalChannel;
import io.sluice.network.Partitioner;
import io.sluice.network.RecordWriter;
import io.sluice.network.Watermark;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Two task executors' data exchanges in one JVM, talking over loopback TCP: order, credits and
 * backpressure, independence of the channels on one connection, and release on failure.
 */
@Timeout(60)
class NettyShuffleEnvironmentTest {
    private static final JobId JOB = JobId.of("0123456789abcdef0123456789abcdef");
    private static final Duration WAIT = Duration.ofSeconds(20);

    private final List<AutoCloseable> toClose = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (AutoCloseable c : toClose) {
            c.close();
        }
    }

    private NettyShuffleEnvironment environment(String name, int buffersPerChannel, int bufferSize) {
        NettyShuffleEnvironment env = NettyShuffleEnvironment.start(name, "127.0.0.1", 0, buffersPerChannel, bufferSize, 1);
        toClose.add(env);
        return env;
    }

    private static ChannelKey key(int edge) {
        return new ChannelKey(JOB, 0, edge, 0, 0);
    }

    @Test
    void recordsAndEveryEventKindArriveInOrderEvenWhenTheConsumerAsksFirst() throws Exception {
        NettyShuffleEnvironment producerSide = environment("producer", 2, 64);
        NettyShuffleEnvironment consumerSide = environment("consumer", 2, 64);
        // The consumer asks before the producer is deployed: its request waits on the producer's side.
        InputGate gate = new InputGate("consumer", List.of(consumerSide.remoteInputChannel(key(1),
                producerSide.dataAddress())));
        await().atMost(WAIT).until(() -> producerSide.remoteChannelCount() == 1);

        RecordWriter<Long> writer = new RecordWriter<>(List.of(producerSide.remoteOutputChannel(key(1))),
                Serializers.LONG, Partitioner.forward(), 64);
        List<String> expected = new ArrayList<>();
        CompletableFuture<Void> producer = start("producer", () -> {
            for (long i = 0; i < 10_000; i++) {
                if (i == 3000) {
                    writer.broadcastEvent(new Watermark(2999));
                } else if (i == 5000) {
                    writer.broadcastEvent(new CheckpointBarrier(7, 1234));
                } else if (i == 6000) {
                    writer.broadcastEvent(IdleStatus.IDLE);
                    writer.broadcastEvent(IdleStatus.ACTIVE);
                }
                writer.emit(i);
            }
            writer.close();
        });
        for (long i = 0; i < 10_000; i++) {
            if (i == 3000) {
                expected.add(new Watermark(2999).toString());
            } else if (i == 5000) {
                expected.add(new CheckpointBarrier(7, 1234).toString());
            } else if (i == 6000) {
                expected.add(IdleStatus.IDLE.toString());
                expected.add(IdleStatus.ACTIVE.toString());
            }
            expected.add(Long.toString(i));
        }
        expected.add(EndOfPartition.INSTANCE.toString());

        List<String> received = readAll(gate);
        producer.get(10, TimeUnit.SECONDS);
        assertThat(received).isEqualTo(expected);
        assertThat(producerSide.metrics().buffersSent()).isEqualTo(consumerSide.metrics().buffersReceived())
                .isGreaterThan(1000);
        assertThat(producerSide.metrics().bytesSent()).isEqualTo(consumerSide.metrics().bytesReceived());
        await().atMost(WAIT).until(() -> producerSide.remoteChannelCount() == 0 && consumerSide.remoteChannelCount() == 0);
    }

    @Test
    void aConsumerThatDoesNotPollStopsTheProducerAfterTheCreditedBuffers() throws Exception {
        int credits = 3;
        NettyShuffleEnvironment producerSide = environment("producer", credits, 64);
        NettyShuffleEnvironment consumerSide = environment("consumer", credits, 64);
        LocalChannel out = producerSide.remoteOutputChannel(key(1));
        LocalChannel in = consumerSide.remoteInputChannel(key(1), producerSide.dataAddress());
        AtomicLong sent = new AtomicLong();
        Thread[] producerThread = new Thread[1];
        CompletableFuture<Void> producer = start("producer", () -> {
            producerThread[0] = Thread.currentThread();
            while (true) {
                out.send(Buffer.data(new byte[] {(byte) sent.get()}, 1));
                sent.incrementAndGet();
            }
        });

        // credits buffers crossed the network and wait at the consumer; as many wait in the producer's
        // queue; the next send blocks the producer task.
        await().atMost(WAIT).until(() -> sent.get() == 2L * credits && in.queuedBuffers() == credits
                && producerThread[0].getState() == Thread.State.WAITING);
        assertThat(consumerSide.metrics().buffersReceived()).isEqualTo(credits);
        assertThat(in.maxQueuedBuffers()).isEqualTo(credits);
        long blocked = out.blockedNanos();
        await().atMost(WAIT).until(() -> out.blockedNanos() > blocked);
        assertThat(sent.get()).isEqualTo(2L * credits);

        // One buffer taken: one credit back, so exactly one more buffer crosses and the producer sends one more.
        assertThat(in.poll().data()[0]).isEqualTo((byte) 0);
        await().atMost(WAIT).until(() -> sent.get() == 2L * credits + 1 && in.queuedBuffers() == credits
                && producerThread[0].getState() == Thread.State.WAITING);
        assertThat(consumerSide.metrics().buffersReceived()).isEqualTo(credits + 1);
        assertThat(in.maxQueuedBuffers()).isEqualTo(credits);
        // In order: the buffers after the first.
        for (int i = 1; i <= credits; i++) {
            assertThat(in.poll().data()[0]).isEqualTo((byte) i);
        }
        producer.cancel(true);
        producerThread[0].interrupt();
    }

    @Test
    void aStalledChannelDoesNotStopAnotherOnTheSameConnection() throws Exception {
        NettyShuffleEnvironment producerSide = environment("producer", 2, 128);
        NettyShuffleEnvironment consumerSide = environment("consumer", 2, 128);
        LocalChannel stalledOut = producerSide.remoteOutputChannel(key(1));
        LocalChannel stalledIn = consumerSide.remoteInputChannel(key(1), producerSide.dataAddress());
        InputGate flowing = new InputGate("flowing", List.of(consumerSide.remoteInputChannel(key(2),
                producerSide.dataAddress())));
        RecordWriter<Long> flowingWriter = new RecordWriter<>(List.of(producerSide.remoteOutputChannel(key(2))),
                Serializers.LONG, Partitioner.forward(), 128);
        CompletableFuture<Void> stalledProducer = start("stalled producer", () -> {
            while (true) {
                stalledOut.send(Buffer.data(new byte[100], 100));
            }
        });
        await().atMost(WAIT).until(() -> stalledIn.queuedBuffers() == 2 && stalledOut.queuedBuffers() == 2);

        CompletableFuture<Void> flowingProducer = start("flowing producer", () -> {
            for (long i = 0; i < 50_000; i++) {
                flowingWriter.emit(i);
            }
            flowingWriter.close();
        });
        List<String> received = readAll(flowing);
        flowingProducer.get(10, TimeUnit.SECONDS);

        assertThat(received).hasSize(50_001).endsWith(EndOfPartition.INSTANCE.toString());
        assertThat(stalledIn.queuedBuffers()).isEqualTo(2);
        assertThat(stalledProducer).isNotDone();
        assertThat(consumerSide.clientConnectionCount()).isEqualTo(1);
        assertThat(producerSide.serverConnectionCount()).isEqualTo(1);
        stalledOut.release(new IllegalStateException("test over"));
    }

    @Test
    void aLostConnectionReleasesBothEndsWithTheCause() throws Exception {
        NettyShuffleEnvironment producerSide = environment("producer", 1, 64);
        NettyShuffleEnvironment consumerSide = environment("consumer", 1, 64);
        LocalChannel out = producerSide.remoteOutputChannel(key(1));
        LocalChannel in = consumerSide.remoteInputChannel(key(1), producerSide.dataAddress());
        CompletableFuture<Void> producer = start("producer", () -> {
            while (true) {
                out.send(Buffer.data(new byte[10], 10));
            }
        });
        await().atMost(WAIT).until(() -> in.queuedBuffers() == 1 && out.queuedBuffers() == 1);

        consumerSide.dropClientConnections();

        assertThatThrownBy(() -> producer.get(10, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                .cause().isInstanceOf(ChannelReleasedException.class)
                .hasMessageContaining("Connection from the consumer task executor")
                .hasMessageContaining("was lost")
                .hasRootCauseInstanceOf(RemoteChannelException.class);
        assertThat(in.isReleased()).isTrue();
        assertThat(in.releaseCause()).isInstanceOf(RemoteChannelException.class)
                .hasMessageContaining("Connection to the data server " + producerSide.dataAddress());
        assertThatThrownBy(in::poll).isInstanceOf(ChannelReleasedException.class);
        await().atMost(WAIT).until(() -> producerSide.remoteChannelCount() == 0 && consumerSide.remoteChannelCount() == 0);

        // The next deployment's channels get a new connection.
        ChannelKey next = new ChannelKey(JOB, 1, 1, 0, 0);
        LocalChannel nextIn = consumerSide.remoteInputChannel(next, producerSide.dataAddress());
        producerSide.remoteOutputChannel(next).send(Buffer.event(new Watermark(42)));
        await().atMost(WAIT).until(() -> nextIn.queuedBuffers() == 1);
        assertThat(nextIn.poll().event()).isEqualTo(new Watermark(42));
        assertThat(consumerSide.clientConnectionCount()).isEqualTo(1);
    }

    @Test
    void aProducerTaskExecutorThatGoesAwayReleasesItsConsumersWithTheCause() throws Exception {
        NettyShuffleEnvironment producerSide = environment("producer", 1, 64);
        NettyShuffleEnvironment consumerSide = environment("consumer", 1, 64);
        LocalChannel in = consumerSide.remoteInputChannel(key(1), producerSide.dataAddress());
        await().atMost(WAIT).until(() -> producerSide.serverConnectionCount() == 1);

        producerSide.close();

        await().atMost(WAIT).until(in::isReleased);
        assertThat(in.releaseCause()).isInstanceOf(RemoteChannelException.class)
                .hasMessageContaining(producerSide.dataAddress());
    }

    @Test
    void connectingToAnAddressWithoutADataServerReleasesTheChannelSayingSo() throws Exception {
        NettyShuffleEnvironment gone = environment("gone", 1, 64);
        String address = gone.dataAddress();
        gone.close();
        NettyShuffleEnvironment consumerSide = environment("consumer", 1, 64);

        LocalChannel in = consumerSide.remoteInputChannel(key(1), address);

        await().atMost(WAIT).until(in::isReleased);
        assertThat(in.releaseCause()).isInstanceOf(RemoteChannelException.class)
                .hasMessageContaining("Could not connect to the data server " + address);
    }

    @Test
    void releasingTheAttemptOnTheProducerSideReleasesTheConsumer() throws Exception {
        NettyShuffleEnvironment producerSide = environment("producer", 1, 64);
        NettyShuffleEnvironment consumerSide = environment("consumer", 1, 64);
        producerSide.remoteOutputChannel(key(1));
        InputGate gate = new InputGate("consumer", List.of(consumerSide.remoteInputChannel(key(1),
                producerSide.dataAddress())));
        CompletableFuture<Void> consumer = start("consumer", gate::pollNext);
        await().atMost(WAIT).until(() -> producerSide.serverConnectionCount() == 1);

        producerSide.releaseAttempt(JOB, 0, new IllegalStateException("map (2/2) failed"));

        assertThatThrownBy(() -> consumer.get(10, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                .cause().isInstanceOf(ChannelReleasedException.class)
                .hasMessageContaining("The producer of " + key(1))
                .hasMessageContaining("map (2/2) failed");
    }

    @Test
    void releasingTheAttemptOnTheConsumerSideReleasesTheBlockedProducer() throws Exception {
        NettyShuffleEnvironment producerSide = environment("producer", 1, 64);
        NettyShuffleEnvironment consumerSide = environment("consumer", 1, 64);
        LocalChannel out = producerSide.remoteOutputChannel(key(1));
        LocalChannel in = consumerSide.remoteInputChannel(key(1), producerSide.dataAddress());
        CompletableFuture<Void> producer = start("producer", () -> {
            while (true) {
                out.send(Buffer.data(new byte[10], 10));
            }
        });
        await().atMost(WAIT).until(() -> in.queuedBuffers() == 1 && out.queuedBuffers() == 1);

        consumerSide.releaseAttempt(JOB, 0, new IllegalStateException("sink (1/2) was cancelled"));

        assertThatThrownBy(() -> producer.get(10, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                .cause().isInstanceOf(ChannelReleasedException.class)
                .hasMessageContaining("The consumer of " + key(1))
                .hasMessageContaining("sink (1/2) was cancelled");
        await().atMost(WAIT).until(() -> producerSide.remoteChannelCount() == 0 && consumerSide.remoteChannelCount() == 0);
        // Later requests for that attempt fail at once.
        assertThatThrownBy(() -> consumerSide.remoteInputChannel(key(2), producerSide.dataAddress()))
                .isInstanceOf(ChannelReleasedException.class);
    }

    @Test
    void aRequestForAnAttemptTheProducerSideReleasedIsRefused() {
        NettyShuffleEnvironment producerSide = environment("producer", 1, 64);
        NettyShuffleEnvironment consumerSide = environment("consumer", 1, 64);
        producerSide.releaseAttempt(JOB, 0, new IllegalStateException("deployment 0 ended"));

        LocalChannel in = consumerSide.remoteInputChannel(key(1), producerSide.dataAddress());

        await().atMost(WAIT).until(in::isReleased);
        assertThat(in.releaseCause()).hasMessageContaining("was already released here");
        assertThatThrownBy(() -> producerSide.remoteOutputChannel(key(1))).isInstanceOf(ChannelReleasedException.class);
    }

    @Test
    void aRequestWaitingForItsProducerEndsWhenTheAttemptIsReleasedOnEitherSide() {
        NettyShuffleEnvironment producerSide = environment("producer", 1, 64);
        NettyShuffleEnvironment consumerSide = environment("consumer", 1, 64);
        // Released on the producer's side while waiting: the consumer is told.
        LocalChannel first = consumerSide.remoteInputChannel(key(1), producerSide.dataAddress());
        await().atMost(WAIT).until(() -> producerSide.remoteChannelCount() == 1);
        producerSide.releaseAttempt(JOB, 0, new IllegalStateException("deployment 0 of the job ended"));
        await().atMost(WAIT).until(first::isReleased);
        assertThat(first.releaseCause()).hasMessageContaining("deployment 0 of the job ended");
        assertThat(producerSide.remoteChannelCount()).isZero();

        // Released on the consumer's side while waiting: the producer's side forgets the request.
        ChannelKey next = new ChannelKey(JOB, 1, 1, 0, 0);
        LocalChannel second = consumerSide.remoteInputChannel(next, producerSide.dataAddress());
        await().atMost(WAIT).until(() -> producerSide.remoteChannelCount() == 1);
        consumerSide.releaseAttempt(JOB, 1, new IllegalStateException("sink (1/1) was cancelled"));
        assertThat(second.isReleased()).isTrue();
        await().atMost(WAIT).until(() -> producerSide.remoteChannelCount() == 0 && consumerSide.remoteChannelCount() == 0);
        // A producer deployed later still gets a channel (its own release is what ends it).
        assertThat(producerSide.remoteOutputChannel(next).isReleased()).isFalse();
    }

    /** Reads the gate until the end of partition; records as their values, events by their toString. */
    private static List<String> readAll(InputGate gate) throws InterruptedException {
        List<String> out = new ArrayList<>();
        DataInputBuffer input = new DataInputBuffer();
        while (true) {
            BufferOrEvent next = gate.pollNext();
            Buffer buffer = next.buffer();
            if (buffer.isEvent()) {
                out.add(buffer.event().toString());
                if (buffer.event() == EndOfPartition.INSTANCE) {
                    return out;
                }
            } else {
                input.reset(buffer.data(), 0, buffer.length());
                while (input.hasRemaining()) {
                    out.add(Long.toString(Serializers.LONG.deserialize(input)));
                }
                buffer.recycle();
            }
        }
    }

    @FunctionalInterface
    private interface Body {
        void run() throws Exception;
    }

    private static CompletableFuture<Void> start(String name, Body body) {
        CompletableFuture<Void> outcome = new CompletableFuture<>();
        Thread t = new Thread(() -> {
            try {
                body.run();
                outcome.complete(null);
            } catch (Throwable e) {
                outcome.completeExceptionally(e);
            }
        }, name);
        t.setDaemon(true);
        t.start();
        return outcome;
    }
}
