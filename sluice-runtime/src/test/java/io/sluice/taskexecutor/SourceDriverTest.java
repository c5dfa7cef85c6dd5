package io.sluice.taskexecutor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.sluice.api.functions.Collector;
import io.sluice.api.source.SourceReader;
import io.sluice.util.ManualClock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A source task whose reader has nothing to emit sleeps until the reader's next record is due: it does not ask
 * the reader again and again (an idle job would cost CPU), and mail (a checkpoint trigger) or a cancel still
 * reaches it at once.
 */
@Timeout(60)
class SourceDriverTest {
    /** Nothing to emit for an hour. */
    private static final class SlowReader implements SourceReader<Object> {
        final AtomicInteger emitCalls = new AtomicInteger();

        @Override
        public int emit(Collector<Object> out, int maxRecords) {
            emitCalls.incrementAndGet();
            return 0;
        }

        @Override
        public long nanosUntilAvailable() {
            return TimeUnit.HOURS.toNanos(1);
        }

        @Override
        public byte[] snapshotPosition() {
            return new byte[0];
        }

        @Override
        public void restorePosition(byte[] position) {}
    }

    private final SlowReader reader = new SlowReader();
    private final AtomicBoolean cancelled = new AtomicBoolean();
    private final CompletableFuture<TaskMailbox> mailbox = new CompletableFuture<>();
    private final CompletableFuture<Void> outcome = new CompletableFuture<>();
    private final Thread task = new Thread(() -> {
        try {
            TaskMailbox box = new TaskMailbox(TaskThread.current("Source (1/1)"));
            OperatorChain chain = OperatorChain.wire(new TaskInfo("Source (1/1)", 0, 1, 128, 1),
                    List.of(new RecordingOperator("Sink")), new TaskOutputs(List.of(), List.of(), Map.of()),
                    new ManualClock());
            chain.open(null, new io.sluice.operators.RecordTimestamp(), java.util.OptionalLong.empty());
            mailbox.complete(box);
            new SourceDriver(reader, chain, box, cancelled::get).run();
            outcome.complete(null);
        } catch (Throwable t) {
            outcome.completeExceptionally(t);
        }
    }, "sluice-task-Source (1/1)");

    @Test
    void anIdleSourceSleepsUntilMailWakesItAndAsksItsReaderOnceAfterEachWakeUp() throws Exception {
        task.setDaemon(true);
        task.start();
        awaitSleeping();
        assertThat(reader.emitCalls).as("asked once, then asleep: not every 10 ms").hasValue(1);

        CountDownLatch triggered = new CountDownLatch(1);
        mailbox.get(10, TimeUnit.SECONDS).put(triggered::countDown);

        assertThat(triggered.await(10, TimeUnit.SECONDS)).as("the trigger ran at once, not in an hour").isTrue();
        awaitSleeping();
        assertThat(reader.emitCalls).as("one more look at the reader after the mail").hasValue(2);

        cancelled.set(true);
        task.interrupt();
        assertThat(outcome).failsWithin(Duration.ofSeconds(10)).withThrowableThat()
                .withRootCauseInstanceOf(InterruptedException.class);
        assertThat(reader.emitCalls).hasValue(2);
    }

    private void awaitSleeping() {
        await().atMost(Duration.ofSeconds(10)).until(() -> task.getState() == Thread.State.TIMED_WAITING);
    }
}
