package io.sluice.network;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.serialization.Serializers;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class IdleHookTest {

    @Test
    void theIdleHookRunsBeforeTheProcessorBlocksAndNotWhileInputIsReady() throws Exception {
        List<LocalChannel> out = NetworkTestSupport.channels(new LocalShuffleService(), 1, 0, 1);
        RecordWriter<Long> writer = new RecordWriter<>(out, Serializers.LONG, Partitioner.forward(), 1024);
        AtomicInteger idleCalls = new AtomicInteger();
        CountDownLatch idle = new CountDownLatch(1);
        StreamInputProcessor<Long> processor = new StreamInputProcessor<>(new InputGate("sink", out), Serializers.LONG,
                () -> {
                    idleCalls.incrementAndGet();
                    idle.countDown();
                });
        List<Long> received = new CopyOnWriteArrayList<>();

        writer.emit(1L);
        writer.flushAll();
        processor.processNext(received::add, new NetworkTestSupport.Recorder());
        assertThat(received).containsExactly(1L);
        assertThat(idleCalls).hasValue(0);

        NetworkTestSupport.Running consumer = NetworkTestSupport.start("consumer",
                () -> processor.processNext(received::add, new NetworkTestSupport.Recorder()));
        assertThat(idle.await(10, TimeUnit.SECONDS)).as("idle hook called").isTrue();
        consumer.awaitBlocked();
        assertThat(received).containsExactly(1L);

        writer.emit(2L);
        writer.flushAll();
        consumer.outcome().get(10, TimeUnit.SECONDS);
        assertThat(received).containsExactly(1L, 2L);
        assertThat(idleCalls).hasValue(1);
    }
}
