package io.sluice.taskexecutor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.graph.JobId;
import io.sluice.job.ExecutionAttemptId;
import io.sluice.job.ExecutionState;
import io.sluice.protocol.TaskExecutionState;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * The task lifecycle's one transition method: which moves it makes, what the job master hears of
 * them (the same reports as before the phases were explicit), how a cancel overtakes the task
 * thread's next move, and what it refuses.
 */
class TaskLifecycleTest {
    private final ExecutionAttemptId attempt = new ExecutionAttemptId(JobId.generate(), 1, 0, 1);
    private final List<TaskExecutionState> reports = new CopyOnWriteArrayList<>();
    private final TaskLifecycle lifecycle = new TaskLifecycle(attempt, "Count (1/1)", reports::add);

    @Test
    void aTaskThatRunsToItsEndIsHeardRunningAndFinishedOnly() {
        assertThat(lifecycle.reportedState()).as("before any report").isEqualTo(ExecutionState.DEPLOYING);

        for (TaskPhase next : List.of(TaskPhase.DEPLOYING, TaskPhase.RUNNING, TaskPhase.FINISHING, TaskPhase.FINISHED)) {
            assertThat(lifecycle.transitionTo(next)).as(next.name()).isTrue();
            assertThat(lifecycle.phase()).isEqualTo(next);
        }

        assertThat(reports).extracting(TaskExecutionState::state)
                .containsExactly(ExecutionState.RUNNING, ExecutionState.FINISHED);
        assertThat(reports).allMatch(r -> r.attemptId().equals(attempt) && r.failure() == null);
        assertThat(lifecycle.reportedState()).isEqualTo(ExecutionState.FINISHED);
        assertThat(lifecycle.isEnded()).isTrue();
    }

    @Test
    void aCancelOvertakesTheTaskThreadsNextMoveAndTheTaskEndsCanceled() {
        lifecycle.transitionTo(TaskPhase.DEPLOYING);
        lifecycle.transitionTo(TaskPhase.RUNNING);

        assertThat(lifecycle.transitionTo(TaskPhase.CANCELING)).isTrue();
        assertThat(lifecycle.isCancelled()).isTrue();
        assertThat(lifecycle.transitionTo(TaskPhase.FINISHING)).as("the input ended after the cancel").isFalse();
        assertThat(lifecycle.transitionTo(TaskPhase.FAILED, new RuntimeException("interrupted")))
                .as("a failure after the cancel").isFalse();
        assertThat(lifecycle.transitionTo(TaskPhase.CANCELING)).as("a second cancel").isFalse();
        assertThat(lifecycle.transitionTo(TaskPhase.CANCELED)).isTrue();
        assertThat(lifecycle.transitionTo(TaskPhase.CANCELING)).as("a cancel after the end").isFalse();

        assertThat(reports).extracting(TaskExecutionState::state)
                .containsExactly(ExecutionState.RUNNING, ExecutionState.CANCELED);
        assertThat(lifecycle.isCancelled()).isTrue();
    }

    @Test
    void aTaskCancelledBeforeItsThreadRanIsHeardOnlyAsCanceled() {
        assertThat(lifecycle.transitionTo(TaskPhase.CANCELING)).isTrue();
        assertThat(lifecycle.transitionTo(TaskPhase.DEPLOYING)).isFalse();
        assertThat(lifecycle.transitionTo(TaskPhase.CANCELED)).isTrue();

        assertThat(reports).extracting(TaskExecutionState::state).containsExactly(ExecutionState.CANCELED);
    }

    @Test
    void aFailureIsReportedWithItsCause() {
        lifecycle.transitionTo(TaskPhase.DEPLOYING);
        RuntimeException cause = new RuntimeException("state file corrupt");

        assertThat(lifecycle.transitionTo(TaskPhase.FAILED, cause)).isTrue();

        assertThat(reports).hasSize(1);
        assertThat(reports.get(0).state()).isEqualTo(ExecutionState.FAILED);
        assertThat(reports.get(0).failure()).isSameAs(cause);
    }

    @Test
    void aMoveTheLifecycleDoesNotHaveIsRefusedLoudly() {
        assertThatThrownBy(() -> lifecycle.transitionTo(TaskPhase.RUNNING))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("Count (1/1)").hasMessageContaining("CREATED -> RUNNING");
        lifecycle.transitionTo(TaskPhase.DEPLOYING);
        lifecycle.transitionTo(TaskPhase.RUNNING);
        assertThatThrownBy(() -> lifecycle.transitionTo(TaskPhase.FINISHED))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("RUNNING -> FINISHED");
        assertThatThrownBy(() -> lifecycle.transitionTo(TaskPhase.DEPLOYING))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("RUNNING -> DEPLOYING");

        assertThat(lifecycle.phase()).as("unchanged").isEqualTo(TaskPhase.RUNNING);
        assertThat(reports).extracting(TaskExecutionState::state).containsExactly(ExecutionState.RUNNING);
    }

    @Test
    void aMoveFromInsideTheStateListenerIsRefused() {
        TaskLifecycle[] self = new TaskLifecycle[1];
        List<Throwable> refused = new CopyOnWriteArrayList<>();
        Consumer<TaskExecutionState> reentrant = state -> {
            try {
                self[0].transitionTo(TaskPhase.CANCELING);
            } catch (IllegalStateException e) {
                refused.add(e);
            }
        };
        self[0] = new TaskLifecycle(attempt, "Count (1/1)", reentrant);
        self[0].transitionTo(TaskPhase.DEPLOYING);

        self[0].transitionTo(TaskPhase.RUNNING);

        assertThat(refused).singleElement().extracting(Throwable::getMessage).asString()
                .contains("RUNNING -> CANCELING").contains("state listener");
        assertThat(self[0].phase()).isEqualTo(TaskPhase.RUNNING);
    }

    @Test
    void everyPhaseButTheEndedOnesCanBeCancelled() {
        for (TaskPhase p : TaskPhase.values()) {
            assertThat(p.mayMoveTo(TaskPhase.CANCELING)).as(p.name())
                    .isEqualTo(!p.isEnded() && p != TaskPhase.CANCELING);
            if (p.isEnded()) {
                for (TaskPhase next : TaskPhase.values()) {
                    assertThat(p.mayMoveTo(next)).as(p + " -> " + next).isFalse();
                }
            }
        }
    }
}
