package io.sluice.rpc;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.testutil.ManualExecutor;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A main thread borrowed from a pool, on a manual pool executor: commands run in order, one turn at
 * a time, marked as that component's main thread only while they run, and a busy component yields
 * the pool thread after a batch.
 */
class PooledMainThreadExecutorTest {
    private final ManualExecutor pool = new ManualExecutor();
    private final ScheduledThreadPoolExecutor timer = new ScheduledThreadPoolExecutor(1);

    @AfterEach
    void stop() {
        timer.shutdownNow();
    }

    @Test
    void commandsRunInOrderInOneTurnMarkedAsTheComponentsMainThread() {
        PooledMainThreadExecutor a = new PooledMainThreadExecutor("job-a", pool, timer);
        PooledMainThreadExecutor b = new PooledMainThreadExecutor("job-b", pool, timer);
        List<String> ran = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            int n = i;
            a.execute(() -> ran.add("a" + n + " main=" + a.isMainThread() + " other=" + b.isMainThread()
                    + " marked=" + MainThreads.currentComponent()));
        }
        b.execute(() -> ran.add("b main=" + b.isMainThread()));
        assertThat(pool.numQueued()).as("one turn per component").isEqualTo(2);
        assertThat(a.isMainThread()).isFalse();

        pool.triggerAll();

        assertThat(ran).containsExactly("a0 main=true other=false marked=job-a", "a1 main=true other=false marked=job-a",
                "a2 main=true other=false marked=job-a", "b main=true");
        assertThat(MainThreads.currentComponent()).as("the pool thread is unmarked after the turn").isNull();
    }

    @Test
    void aCommandDueNowRunsInTheRunningTurnWithoutTheTimer() {
        timer.shutdownNow(); // a command sent through the timer would be dropped
        PooledMainThreadExecutor a = new PooledMainThreadExecutor("job-a", pool, timer);
        List<String> ran = new ArrayList<>();
        a.execute(() -> {
            a.schedule(() -> ran.add("due now, main=" + a.isMainThread()), java.time.Duration.ZERO);
            a.schedule(() -> ran.add("cancelled"), java.time.Duration.ZERO).cancel();
            ran.add("first");
        });
        pool.triggerAll();
        assertThat(ran).containsExactly("first", "due now, main=true");
        assertThat(pool.numQueued()).as("no second turn").isZero();
    }

    @Test
    void aBusyComponentYieldsThePoolThreadAfterABatch() {
        PooledMainThreadExecutor busy = new PooledMainThreadExecutor("busy", pool, timer);
        PooledMainThreadExecutor other = new PooledMainThreadExecutor("other", pool, timer);
        List<String> ran = new ArrayList<>();
        for (int i = 0; i < PooledMainThreadExecutor.BATCH + 6; i++) {
            busy.execute(() -> ran.add("busy"));
        }
        other.execute(() -> ran.add("other"));
        pool.triggerAll();
        assertThat(ran.indexOf("other")).as("other ran after one batch of busy, before the rest")
                .isEqualTo(PooledMainThreadExecutor.BATCH);
        assertThat(ran).hasSize(PooledMainThreadExecutor.BATCH + 7);
    }

    @Test
    void aCommandThatThrowsDoesNotStopTheOnesAfterIt() {
        PooledMainThreadExecutor a = new PooledMainThreadExecutor("job-a", pool, timer);
        List<String> ran = new ArrayList<>();
        a.execute(() -> {
            throw new IllegalStateException("a bug");
        });
        a.execute(() -> ran.add("after"));
        pool.triggerAll();
        assertThat(ran).containsExactly("after");
    }
}
