package io.sluice.testutil;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.rpc.MainThreadExecutor.ScheduledTask;
import io.sluice.rpc.MainThreads;
import io.sluice.util.ManualClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ManuallyTriggeredMainThreadExecutorTest {
    private final ManualClock clock = new ManualClock();
    private final ManuallyTriggeredMainThreadExecutor executor = new ManuallyTriggeredMainThreadExecutor("JobMaster", clock);
    private final List<String> log = new ArrayList<>();

    @Test
    void executeOnlyQueuesUntilTriggered() {
        executor.execute(() -> log.add("a"));
        executor.execute(() -> log.add("b"));

        assertThat(log).isEmpty();
        assertThat(executor.numQueued()).isEqualTo(2);
        assertThat(executor.triggerAll()).isEqualTo(2);
        assertThat(log).containsExactly("a", "b");
        assertThat(executor.numQueued()).isZero();
    }

    @Test
    void triggerAllRunsCommandsQueuedWhileRunning() {
        executor.execute(() -> {
            log.add("first");
            executor.execute(() -> log.add("queued by first"));
        });
        executor.execute(() -> log.add("second"));

        assertThat(executor.triggerAll()).isEqualTo(3);
        assertThat(log).containsExactly("first", "second", "queued by first");
    }

    @Test
    void callingThreadIsTheMainThreadOnlyWhileTriggering() {
        executor.execute(() -> {
            executor.assertRunningInMainThread();
            log.add(MainThreads.currentComponent() + " " + executor.isMainThread());
        });

        assertThat(executor.isMainThread()).isFalse();
        assertThatThrownBy(executor::assertRunningInMainThread).hasMessageContaining("main thread of JobMaster");
        executor.triggerAll();
        assertThat(log).containsExactly("JobMaster true");
        assertThat(executor.isMainThread()).isFalse();
        assertThat(MainThreads.isMainThread()).isFalse();
    }

    @Test
    void markIsClearedEvenWhenACommandThrowsAndTheRestStayQueued() {
        executor.execute(() -> {
            throw new IllegalStateException("boom");
        });
        executor.execute(() -> log.add("later"));

        assertThatThrownBy(executor::triggerAll).hasMessage("boom");
        assertThat(MainThreads.isMainThread()).isFalse();
        assertThat(executor.isMainThread()).isFalse();
        assertThat(executor.numQueued()).isEqualTo(1);
        executor.triggerAll();
        assertThat(log).containsExactly("later");
    }

    @Test
    void restoresAnOuterMainThreadMark() {
        MainThreads.markCurrentThread("Dispatcher");
        try {
            executor.execute(() -> log.add(MainThreads.currentComponent()));
            executor.triggerAll();
            assertThat(log).containsExactly("JobMaster");
            assertThat(MainThreads.currentComponent()).isEqualTo("Dispatcher");
        } finally {
            MainThreads.clearCurrentThread();
        }
    }

    @Test
    void triggeringFromInsideACommandIsRejected() {
        executor.execute(executor::triggerAll);

        assertThatThrownBy(executor::triggerAll).hasMessageContaining("Already triggering the main thread of JobMaster");
    }

    @Test
    void scheduledCommandsRunWhenDueInTimeOrderSeeingTheirDueTime() {
        long start = clock.nanoTime();
        executor.schedule(() -> log.add("b@" + (clock.nanoTime() - start) / 1_000_000), Duration.ofMillis(200));
        executor.schedule(() -> log.add("a@" + (clock.nanoTime() - start) / 1_000_000), Duration.ofMillis(100));
        executor.schedule(() -> log.add("c"), Duration.ofSeconds(1));

        assertThat(executor.triggerAll()).isZero();
        assertThat(executor.advanceTime(Duration.ofMillis(99))).isZero();
        assertThat(executor.advanceTime(Duration.ofMillis(151))).isEqualTo(2);

        assertThat(log).containsExactly("a@100", "b@200");
        assertThat(clock.nanoTime() - start).isEqualTo(Duration.ofMillis(250).toNanos());
        assertThat(executor.numScheduled()).isEqualTo(1);
    }

    @Test
    void commandsQueuedOrScheduledDuringAdvanceRunIfDue() {
        executor.schedule(() -> {
            log.add("timer");
            executor.execute(() -> log.add("queued by timer"));
            executor.schedule(() -> log.add("rescheduled"), Duration.ofMillis(50));
            executor.schedule(() -> log.add("too late"), Duration.ofSeconds(10));
        }, Duration.ofMillis(10));
        executor.schedule(() -> log.add("second timer"), Duration.ofMillis(20));

        executor.advanceTime(Duration.ofMillis(100));

        assertThat(log).containsExactly("timer", "queued by timer", "second timer", "rescheduled");
        assertThat(executor.numScheduled()).isEqualTo(1);
    }

    @Test
    void timersWithTheSameDueTimeRunInSchedulingOrder() {
        executor.schedule(() -> log.add("1"), Duration.ofSeconds(1));
        executor.schedule(() -> log.add("2"), Duration.ofSeconds(1));
        executor.schedule(() -> log.add("0"), Duration.ZERO);

        executor.advanceTime(Duration.ofSeconds(1));

        assertThat(log).containsExactly("0", "1", "2");
    }

    @Test
    void cancelledCommandsDoNotRun() {
        ScheduledTask task = executor.schedule(() -> log.add("cancelled"), Duration.ofSeconds(1));
        executor.schedule(() -> log.add("kept"), Duration.ofSeconds(1));
        task.cancel();

        assertThat(executor.numScheduled()).isEqualTo(1);
        executor.advanceTime(Duration.ofSeconds(5));
        assertThat(log).containsExactly("kept");
    }

    @Test
    void advanceTimeMarksTheMainThread() {
        executor.schedule(() -> log.add("main=" + executor.isMainThread()), Duration.ofMillis(1));

        executor.advanceTime(Duration.ofMillis(1));

        assertThat(log).containsExactly("main=true");
        assertThat(MainThreads.isMainThread()).isFalse();
    }

    @Test
    void advanceTimeRunsTimersMadeDueByMovingTheClockElsewhere() {
        executor.schedule(() -> log.add("due"), Duration.ofSeconds(1));
        clock.advance(Duration.ofSeconds(1));

        assertThat(executor.advanceTime(Duration.ZERO)).isEqualTo(1);
        assertThat(log).containsExactly("due");
    }
}
