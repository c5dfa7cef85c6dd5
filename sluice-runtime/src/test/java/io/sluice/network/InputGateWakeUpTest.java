package io.sluice.network;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.sluice.core.serialization.Serializers;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * An idle input task sleeps on its gate for as long as its operators allow (up to a second); mail for the task
 * ends that sleep through {@link InputGate#wakeUp}, without a buffer and without losing one.
 */
@Timeout(30)
class InputGateWakeUpTest {
    private static final long AN_HOUR = TimeUnit.HOURS.toNanos(1);

    private final List<LocalChannel> channels = NetworkTestSupport.channels(new LocalShuffleService(), 1, 0, 1);
    private final InputGate gate = new InputGate("sink", channels);
    private final RecordWriter<Long> writer = new RecordWriter<>(channels, Serializers.LONG, Partitioner.forward(), 1024);

    @Test
    void aWakeUpEndsATimedWaitWithoutABuffer() throws Exception {
        AtomicReference<BufferOrEvent> polled = new AtomicReference<>();
        NetworkTestSupport.Running consumer = NetworkTestSupport.start("consumer", () -> polled.set(gate.pollNext(AN_HOUR)));
        await().atMost(Duration.ofSeconds(10)).until(() -> consumer.thread().getState() == Thread.State.TIMED_WAITING);

        gate.wakeUp();

        consumer.outcome().get(10, TimeUnit.SECONDS);
        assertThat(polled.get()).isNull();
    }

    @Test
    void aWakeUpBeforeTheWaitEndsItAtOnceAndOnlyThatOne() throws Exception {
        gate.wakeUp(); // mail came between the task's last look at its mailbox and its wait

        assertThat(gate.pollNext(AN_HOUR)).as("returns at once, not in an hour").isNull();

        NetworkTestSupport.Running consumer = NetworkTestSupport.start("consumer", () -> gate.pollNext(AN_HOUR));
        await().atMost(Duration.ofSeconds(10)).until(() -> consumer.thread().getState() == Thread.State.TIMED_WAITING);
        assertThat(consumer.outcome()).as("the wake-up was used up by the first wait").isNotDone();
        gate.wakeUp();
        consumer.outcome().get(10, TimeUnit.SECONDS);
    }

    @Test
    void aWakeUpLosesNoBufferAndAnIdleProcessorAsksItsTimeoutEachTime() throws Exception {
        List<Long> received = new CopyOnWriteArrayList<>();
        List<Long> timeoutsAsked = new CopyOnWriteArrayList<>();
        StreamInputProcessor<Long> processor = new StreamInputProcessor<>(gate, List.of(Serializers.LONG), () -> { },
                new boolean[1], new io.sluice.operators.RecordTimestamp(), () -> {
                    timeoutsAsked.add(AN_HOUR);
                    return AN_HOUR;
                });
        writer.emit(1L);
        writer.flushAll();
        gate.wakeUp();

        assertThat(processor.processNext(received::add, new NetworkTestSupport.Recorder())).isEqualTo(InputStatus.MORE_AVAILABLE);
        assertThat(received).as("the buffer comes first; the wake-up stays for the next wait").containsExactly(1L);
        assertThat(processor.processNext(received::add, new NetworkTestSupport.Recorder()))
                .isEqualTo(InputStatus.NOTHING_AVAILABLE);
        assertThat(timeoutsAsked).hasSize(1);

        NetworkTestSupport.Running consumer = NetworkTestSupport.start("consumer",
                () -> processor.processNext(received::add, new NetworkTestSupport.Recorder()));
        await().atMost(Duration.ofSeconds(10)).until(() -> consumer.thread().getState() == Thread.State.TIMED_WAITING);
        writer.emit(2L);
        writer.flushAll();
        consumer.outcome().get(10, TimeUnit.SECONDS);
        assertThat(received).containsExactly(1L, 2L);
        assertThat(timeoutsAsked).hasSize(2);
    }
}
