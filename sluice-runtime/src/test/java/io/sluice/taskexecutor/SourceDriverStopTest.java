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
 * Stop-with-savepoint at a source task: after the savepoint's barrier the source asks its reader for nothing
 * more (nothing reaches a sink after the state the savepoint holds), still runs its mailbox, resumes when a
 * later trigger comes (the savepoint failed), and ends on cancel. Ordering only: the mails run on the task
 * thread, so a count read after a mail ran cannot race with the driver.
 */
@Timeout(60)
class SourceDriverStopTest {
    /** Always ready, never emits: the driver asks it again at once, and each call is counted. */
    private static final class BusyReader implements SourceReader<Object> {
        final AtomicInteger emitCalls = new AtomicInteger();

        @Override
        public int emit(Collector<Object> out, int maxRecords) {
            emitCalls.incrementAndGet();
            return 0;
        }

        @Override
        public byte[] snapshotPosition() {
            return new byte[0];
        }

        @Override
        public void restorePosition(byte[] position) {}
    }

    private final BusyReader reader = new BusyReader();
    private final AtomicBoolean cancelled = new AtomicBoolean();
    private final CompletableFuture<TaskMailbox> mailbox = new CompletableFuture<>();
    private final CompletableFuture<SourceDriver> driver = new CompletableFuture<>();
    private final CompletableFuture<Void> outcome = new CompletableFuture<>();
    private final Thread task = new Thread(() -> {
        try {
            TaskMailbox box = new TaskMailbox(TaskThread.current("Source (1/1)"));
            OperatorChain chain = OperatorChain.wire(new TaskInfo("Source (1/1)", 0, 1, 128, 1),
                    List.of(new RecordingOperator("Sink")), new TaskOutputs(List.of(), List.of(), Map.of()),
                    new ManualClock());
            chain.open(null, new io.sluice.operators.RecordTimestamp(), java.util.OptionalLong.empty());
            SourceDriver d = new SourceDriver(reader, chain, box, cancelled::get);
            mailbox.complete(box);
            driver.complete(d);
            d.run();
            outcome.complete(null);
        } catch (Throwable t) {
            outcome.completeExceptionally(t);
        }
    }, "sluice-task-Source (1/1)");

    /** Runs {@code action} as mail on the task thread and waits until it ran. */
    private void onTaskThread(Runnable action) throws Exception {
        CountDownLatch ran = new CountDownLatch(1);
        mailbox.get(10, TimeUnit.SECONDS).put(() -> {
            action.run();
            ran.countDown();
        });
        assertThat(ran.await(10, TimeUnit.SECONDS)).as("the mail ran").isTrue();
    }

    @Test
    void afterTheStopSavepointsBarrierTheSourceEmitsNothingUntilResumedOrCancelled() throws Exception {
        task.setDaemon(true);
        task.start();
        await().atMost(Duration.ofSeconds(10)).until(() -> reader.emitCalls.get() > 10);
        SourceDriver d = driver.get(10, TimeUnit.SECONDS);

        onTaskThread(() -> d.stopAfter(7));
        int atStop = reader.emitCalls.get();
        onTaskThread(() -> assertThat(d.stoppedAfter()).isEqualTo(7)); // the driver still runs its mailbox
        onTaskThread(() -> { });
        assertThat(reader.emitCalls).as("emit calls after the stop").hasValue(atStop);

        onTaskThread(d::resume); // a later checkpoint's trigger: the savepoint failed, the job goes on
        await().atMost(Duration.ofSeconds(10)).until(() -> reader.emitCalls.get() > atStop + 10);

        onTaskThread(() -> d.stopAfter(9));
        int atSecondStop = reader.emitCalls.get();
        cancelled.set(true);
        task.interrupt();
        // It ends either inside its wait for mail (interrupted) or at its next look at the cancel flag.
        await().atMost(Duration.ofSeconds(10)).until(outcome::isDone);
        if (outcome.isCompletedExceptionally()) {
            assertThat(outcome).failsWithin(Duration.ZERO).withThrowableThat()
                    .withRootCauseInstanceOf(InterruptedException.class);
        }
        assertThat(reader.emitCalls).as("a stopped source ends on cancel without emitting").hasValue(atSecondStop);
    }
}
