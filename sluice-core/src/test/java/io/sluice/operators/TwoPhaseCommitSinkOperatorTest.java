package io.sluice.operators;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.serialization.Serializers;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The operator state of a two-phase-commit sink: its pending committables, by checkpoint. */
class TwoPhaseCommitSinkOperatorTest {
    @Test
    void pendingCommittablesRoundTripThroughTheStateFormat() {
        List<PendingCommits.Entry<String>> entries = List.of(new PendingCommits.Entry<>(3, "part-0-a-0", 11),
                new PendingCommits.Entry<>(4, "part-0-a-1", 12));
        byte[] state = TwoPhaseCommitSinkOperator.encode(entries, Serializers.STRING);
        List<PendingCommits.Entry<String>> back = TwoPhaseCommitSinkOperator.decode(state, Serializers.STRING, "Sink: x");
        assertThat(back).extracting(PendingCommits.Entry::checkpointId).containsExactly(3L, 4L);
        assertThat(back).extracting(PendingCommits.Entry::committable).containsExactly("part-0-a-0", "part-0-a-1");
    }
}
