package io.sluice.testutil;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

class ManualExecutorTest {
    private final ManualExecutor executor = new ManualExecutor();
    private final List<String> log = new ArrayList<>();

    @Test
    void runsNothingUntilTriggeredThenEverythingInOrder() {
        CompletableFuture<String> io = CompletableFuture.supplyAsync(() -> "read", executor);
        executor.execute(() -> log.add("second"));

        assertThat(io).isNotDone();
        assertThat(executor.numQueued()).isEqualTo(2);
        assertThat(executor.triggerAll()).isEqualTo(2);
        assertThat(io).isCompletedWithValue("read");
        assertThat(executor.numQueued()).isZero();
    }

    @Test
    void runsCommandsQueuedWhileRunning() {
        executor.execute(() -> {
            log.add("a");
            executor.execute(() -> log.add("c"));
        });
        executor.execute(() -> log.add("b"));

        assertThat(executor.triggerAll()).isEqualTo(3);
        assertThat(log).containsExactly("a", "b", "c");
    }

    @Test
    void aThrowingCommandPropagatesAndLeavesTheRestQueued() {
        executor.execute(() -> {
            throw new IllegalStateException("disk full");
        });
        executor.execute(() -> log.add("after"));

        assertThatThrownBy(executor::triggerAll).hasMessage("disk full");
        assertThat(executor.numQueued()).isEqualTo(1);
    }
}
