package io.sluice.rpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.testutil.ManuallyTriggeredMainThreadExecutor;
import io.sluice.util.ManualClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The publish step runs on the main thread after each command, scheduled ones and throwing ones included. */
class PublishingMainThreadExecutorTest {
    private final ManualClock clock = new ManualClock();
    private final ManuallyTriggeredMainThreadExecutor main = new ManuallyTriggeredMainThreadExecutor("component", clock);
    private final List<String> log = new ArrayList<>();
    private final PublishingMainThreadExecutor publishing = new PublishingMainThreadExecutor(main, () -> {
        assertThat(main.isMainThread()).as("publish runs on the main thread").isTrue();
        log.add("publish");
    });

    @Test
    void publishesAfterEveryCommandInOrder() {
        publishing.execute(() -> log.add("a"));
        publishing.execute(() -> log.add("b"));
        assertThat(log).as("nothing before the main thread runs").isEmpty();
        assertThat(main.numQueued()).as("one command queued per command, nothing more").isEqualTo(2);
        main.triggerAll();
        assertThat(log).containsExactly("a", "publish", "b", "publish");
    }

    @Test
    void publishesAfterScheduledCommandsAndNotAfterCancelledOnes() {
        publishing.schedule(() -> log.add("later"), Duration.ofSeconds(1));
        publishing.schedule(() -> log.add("cancelled"), Duration.ofSeconds(1)).cancel();
        main.advanceTime(Duration.ofSeconds(1));
        assertThat(log).containsExactly("later", "publish");
    }

    @Test
    void publishesAfterACommandThatThrows() {
        publishing.execute(() -> {
            log.add("throws");
            throw new IllegalStateException("boom");
        });
        assertThatThrownBy(main::triggerAll).hasMessage("boom");
        assertThat(log).containsExactly("throws", "publish");
    }

    @Test
    void answersForTheWrappedThread() {
        assertThat(publishing.isMainThread()).isFalse();
        assertThat(publishing.componentName()).isEqualTo("component");
        assertThat(publishing.delegate()).isSameAs(main);
        publishing.execute(() -> log.add(String.valueOf(publishing.isMainThread())));
        main.triggerAll();
        assertThat(log).containsExactly("true", "publish");
    }
}
