package io.sluice.taskexecutor;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.taskexecutor.FinalCheckpointWait.Stage;
import org.junit.jupiter.api.Test;

/** Which checkpoint is a task's final one, and which completion ends its wait. */
class FinalCheckpointWaitTest {
    private final FinalCheckpointWait wait = new FinalCheckpointWait("Sink: s (1/2)");

    @Test
    void aCompletionBeforeTheFirstCheckpointTakenWhileWaitingDoesNotEndTheWait() {
        wait.completed(4); // a checkpoint of records before the end: the last output is not in it
        assertThat(wait.stage()).isEqualTo(Stage.AWAITING_TRIGGER);

        wait.taken(5);
        wait.completed(4); // a late notice of an older checkpoint
        assertThat(wait.stage()).isEqualTo(Stage.AWAITING_COMPLETION);
        assertThat(wait.finalCheckpointId()).isEqualTo(5);

        wait.completed(5);
        assertThat(wait.stage()).isEqualTo(Stage.COMPLETED);
    }

    @Test
    void whenTheFinalCheckpointDoesNotCompleteALaterOneThatDoesEndsTheWait() {
        wait.taken(5); // declined elsewhere, or timed out
        wait.taken(6);
        assertThat(wait.finalCheckpointId()).as("the first one taken").isEqualTo(5);

        wait.completed(6);
        assertThat(wait.stage()).isEqualTo(Stage.COMPLETED);
    }
}
