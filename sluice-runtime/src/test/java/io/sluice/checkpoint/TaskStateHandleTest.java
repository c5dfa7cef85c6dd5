package io.sluice.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.state.KeyGroupRange;
import org.junit.jupiter.api.Test;

class TaskStateHandleTest {
    private static final KeyGroupRange RANGE = KeyGroupRange.of(0, 63);

    @Test
    void anInlineHandleCarriesItsBytesAndSizeAndNoFile() {
        TaskStateHandle h = TaskStateHandle.inline(2, 1, new byte[] {1, 2, 3}, new byte[] {7}, RANGE);

        assertThat(h.isInline()).isTrue();
        assertThat(h.hasKeyedState()).isTrue();
        assertThat(h.stateFile()).isNull();
        assertThat(h.stateSize()).isEqualTo(3);
        assertThat(h.inlineState()).containsExactly(1, 2, 3);
        assertThat(h.toString()).contains("inline").contains("bytes=3").doesNotContain("file=");
    }

    @Test
    void aFileHandleAndAHandleWithoutKeyedState() {
        TaskStateHandle file = new TaskStateHandle(2, 1, "j/chk-1/2-1.state", 30_000, null, RANGE);
        TaskStateHandle none = new TaskStateHandle(1, 0, null, 0, new byte[] {7}, null);

        assertThat(file.isInline()).isFalse();
        assertThat(file.hasKeyedState()).isTrue();
        assertThat(file.inlineState()).isNull();
        assertThat(none.isInline()).isFalse();
        assertThat(none.hasKeyedState()).isFalse();
    }

    @Test
    void equalityComparesInlineBytesByContent() {
        TaskStateHandle a = TaskStateHandle.inline(2, 1, new byte[] {1, 2, 3}, null, RANGE);
        TaskStateHandle b = TaskStateHandle.inline(2, 1, new byte[] {1, 2, 3}, null, RANGE);
        TaskStateHandle c = TaskStateHandle.inline(2, 1, new byte[] {1, 2, 4}, null, RANGE);

        assertThat(a).isEqualTo(b).hasSameHashCodeAs(b).isNotEqualTo(c);
        assertThat(a).isNotEqualTo(new TaskStateHandle(2, 1, null, 3, null, RANGE));
    }

    @Test
    void aSnapshotIsInExactlyOnePlace() {
        assertThatThrownBy(() -> new TaskStateHandle(2, 1, "j/chk-1/2-1.state", 3, null, RANGE, new byte[] {1, 2, 3}))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("vertex 2, subtask 1")
                .hasMessageContaining("both a state file (j/chk-1/2-1.state) and inline state");
    }

    @Test
    void theSizeOfInlineStateIsItsLength() {
        assertThatThrownBy(() -> new TaskStateHandle(2, 1, null, 5, null, RANGE, new byte[] {1, 2, 3}))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("claims 5 bytes of state but carries 3 inline");
    }
}
