package io.sluice.network;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.core.serialization.Serializers;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class ReleaseTest {
    private final LocalShuffleService shuffle = new LocalShuffleService(1, 64);
    private final ChannelKey key = new ChannelKey(NetworkTestSupport.JOB, 0, 1, 0, 0);

    @Test
    void releasingTheAttemptWakesABlockedProducer() throws Exception {
        LocalChannel channel = shuffle.channel(key);
        RecordWriter<Long> writer = new RecordWriter<>(List.of(channel), Serializers.LONG, Partitioner.forward(), 64);
        NetworkTestSupport.Running producer = NetworkTestSupport.start("producer", () -> {
            for (long i = 0; ; i++) {
                writer.emit(i);
            }
        });
        producer.awaitBlocked();

        RuntimeException cause = new RuntimeException("task 3 failed");
        shuffle.releaseAttempt(NetworkTestSupport.JOB, 0, cause);

        assertReleased(producer, cause);
        assertThat(shuffle.channelCount()).isZero();
    }

    @Test
    void releasingTheAttemptWakesABlockedConsumer() throws Exception {
        InputGate gate = new InputGate("sink", List.of(shuffle.channel(key)));
        StreamInputProcessor<Long> processor = new StreamInputProcessor<>(gate, Serializers.LONG, IdleHook.NONE);
        NetworkTestSupport.Running consumer = NetworkTestSupport.start("consumer",
                () -> processor.processNext(r -> { }, new NetworkTestSupport.Recorder()));
        consumer.awaitBlocked();

        RuntimeException cause = new RuntimeException("cancelled");
        shuffle.releaseAttempt(NetworkTestSupport.JOB, 0, cause);

        assertReleased(consumer, cause);
    }

    @Test
    void releasingTheGateWakesItsConsumerAndInterruptingItToo() throws Exception {
        InputGate gate = new InputGate("sink", List.of(shuffle.channel(key)));
        NetworkTestSupport.Running consumer = NetworkTestSupport.start("consumer", gate::pollNext);
        consumer.awaitBlocked();
        gate.release(new IllegalStateException("task cancelled"));
        assertThatThrownBy(() -> consumer.outcome().get(10, TimeUnit.SECONDS))
                .hasCauseInstanceOf(ChannelReleasedException.class).hasMessageContaining("Input gate sink");

        InputGate other = new InputGate("other", List.of(shuffle.channel(new ChannelKey(NetworkTestSupport.JOB, 0, 2, 0, 0))));
        NetworkTestSupport.Running interrupted = NetworkTestSupport.start("interrupted", other::pollNext);
        interrupted.awaitBlocked();
        interrupted.thread().interrupt();
        assertThatThrownBy(() -> interrupted.outcome().get(10, TimeUnit.SECONDS))
                .hasCauseInstanceOf(InterruptedException.class);
    }

    @Test
    void shuffleServiceSharesChannelsByKeyAndReleasesOnlyTheGivenAttempt() {
        LocalChannel first = shuffle.channel(key);
        assertThat(shuffle.channel(new ChannelKey(NetworkTestSupport.JOB, 0, 1, 0, 0))).isSameAs(first);
        ChannelKey nextAttempt = new ChannelKey(NetworkTestSupport.JOB, 1, 1, 0, 0);
        LocalChannel second = shuffle.channel(nextAttempt);
        assertThat(second).isNotSameAs(first);

        shuffle.releaseAttempt(NetworkTestSupport.JOB, 0, new RuntimeException("attempt 0 failed"));

        assertThat(first.isReleased()).isTrue();
        assertThat(second.isReleased()).isFalse();
        assertThat(shuffle.channel(nextAttempt)).isSameAs(second);
        assertThatThrownBy(() -> shuffle.channel(key))
                .isInstanceOf(ChannelReleasedException.class).hasMessageContaining("attempt 0");

        shuffle.releaseJob(NetworkTestSupport.JOB);
        assertThat(second.isReleased()).isTrue();
        assertThat(shuffle.channelCount()).isZero();
    }

    private void assertReleased(NetworkTestSupport.Running running, Throwable cause) {
        assertThatThrownBy(() -> running.outcome().get(10, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class)
                .cause().isInstanceOf(ChannelReleasedException.class)
                .hasMessageContaining("Channel " + key)
                .hasMessageContaining(cause.getMessage())
                .hasCause(cause);
    }
}
