package io.sluice.network;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What a network endpoint needs of a channel: a non-blocking offer, a freed-slot callback per poll, one release callback. */
class LocalChannelObserverTest {
    private final List<String> calls = new ArrayList<>();
    private final LocalChannel channel = new LocalChannel("observed", 2, new LocalChannel.Observer() {
        @Override
        public void onSlotFreed() {
            calls.add("slot freed");
        }

        @Override
        public void onReleased(Throwable cause) {
            calls.add("released: " + cause.getMessage());
        }
    });

    @Test
    void offerNeverWaitsAndEveryPollFreesASlot() {
        assertThat(channel.offer(Buffer.event(new Watermark(1)))).isTrue();
        assertThat(channel.offer(Buffer.event(new Watermark(2)))).isTrue();
        assertThat(channel.offer(Buffer.event(new Watermark(3)))).as("full").isFalse();
        assertThat(channel.queuedBuffers()).isEqualTo(2);

        assertThat(channel.poll().event()).isEqualTo(new Watermark(1));
        assertThat(calls).containsExactly("slot freed");
        assertThat(channel.poll().event()).isEqualTo(new Watermark(2));
        assertThat(channel.poll()).isNull();
        assertThat(calls).as("an empty poll frees nothing").containsExactly("slot freed", "slot freed");
    }

    @Test
    void releaseIsReportedOnceWithItsCauseAndFailsLaterOffers() {
        channel.release(new IllegalStateException("attempt 3 ended"));
        channel.release(new IllegalStateException("again"));

        assertThat(calls).containsExactly("released: attempt 3 ended");
        assertThat(channel.releaseCause()).hasMessage("attempt 3 ended");
        assertThatThrownBy(() -> channel.offer(Buffer.event(IdleStatus.IDLE))).isInstanceOf(ChannelReleasedException.class)
                .hasMessageContaining("attempt 3 ended");
    }
}
