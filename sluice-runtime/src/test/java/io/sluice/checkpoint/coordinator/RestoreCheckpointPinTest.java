package io.sluice.checkpoint.coordinator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class RestoreCheckpointPinTest {
    private final RestoreCheckpointPin pin = new RestoreCheckpointPin();

    @Test
    void withoutAPinEveryCheckpointMayBeDiscarded() {
        assertThat(pin.pinned()).isEmpty();
        assertThat(pin.mayDiscardNow(1)).isTrue();
        assertThat(pin.postponed()).isEmpty();
        assertThat(pin.release()).isEmpty();
    }

    @Test
    void thePinnedCheckpointIsPostponedUntilReleased() {
        assertThat(pin.pin(4)).isEmpty();
        assertThat(pin.pinned()).hasValue(4);

        assertThat(pin.mayDiscardNow(3)).as("not pinned").isTrue();
        assertThat(pin.mayDiscardNow(4)).isFalse();
        assertThat(pin.postponed()).containsExactly(4L);

        assertThat(pin.release()).containsExactly(4L);
        assertThat(pin.pinned()).isEmpty();
        assertThat(pin.postponed()).isEmpty();
        assertThat(pin.release()).as("idempotent").isEmpty();
    }

    @Test
    void pinningAnotherCheckpointHandsBackTheEarlierPostponedDiscard() {
        pin.pin(4);
        pin.mayDiscardNow(4);

        assertThat(pin.pin(4)).as("the same restore checkpoint again: still needed").isEmpty();
        assertThat(pin.postponed()).containsExactly(4L);

        assertThat(pin.pin(5)).containsExactly(4L);
        assertThat(pin.pinned()).hasValue(5);
        assertThat(pin.postponed()).isEmpty();
    }

    @Test
    void rejectsNegativeIds() {
        assertThatThrownBy(() -> pin.pin(-1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("got -1");
    }
}
