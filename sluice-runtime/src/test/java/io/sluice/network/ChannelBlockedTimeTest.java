package io.sluice.network;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** The time a producer waits on a full channel, which the backpressure metrics are built from. */
class ChannelBlockedTimeTest {
    @Test
    void countsOnlyTimeSpentWaitingOnAFullChannel() throws Exception {
        LocalChannel channel = new LocalChannel("test", 1);
        channel.send(Buffer.event(EndOfPartition.INSTANCE));
        assertThat(channel.blockedNanos()).as("a send into free capacity does not block").isZero();

        CompletableFuture<Void> blockedSend = CompletableFuture.runAsync(() -> {
            try {
                channel.send(Buffer.event(EndOfPartition.INSTANCE));
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        // While the producer waits, the time includes the wait in progress.
        await().atMost(Duration.ofSeconds(10)).until(() -> channel.blockedNanos() > 0);
        long during = channel.blockedNanos();
        await().atMost(Duration.ofSeconds(10)).until(() -> channel.blockedNanos() > during);
        assertThat(blockedSend).isNotDone();

        channel.poll();
        blockedSend.get();
        long after = channel.blockedNanos();
        assertThat(after).isGreaterThan(during);
        assertThat(channel.blockedNanos()).as("no longer growing once the producer got through").isEqualTo(after);
    }
}
