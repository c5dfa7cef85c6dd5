package io.sluice.jobmaster.deployment;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.checkpoint.CompletedCheckpoint;
import io.sluice.checkpoint.TaskStateHandle;
import io.sluice.graph.JobId;
import io.sluice.graph.JobVertex;
import io.sluice.protocol.TaskRestore;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What each subtask of a vertex restores, at the checkpoint's parallelism and at another one. */
class TaskRestoresTest {
    private static final int SOURCE = 1;
    private static final int COUNT = 2;

    private static JobVertex vertex(int id, int parallelism, boolean source) {
        return new JobVertex(id, "v" + id, parallelism, 128, source, !source, List.of(), List.of(), new byte[0],
                source);
    }

    private static TaskStateHandle position(int subtask, int value) {
        return new TaskStateHandle(SOURCE, subtask, null, 0, new byte[] {(byte) value}, null, null);
    }

    private static CompletedCheckpoint checkpoint(TaskStateHandle... handles) {
        return new CompletedCheckpoint(JobId.generate(), 7, 1, 2, List.of(handles), "chk-7/_metadata");
    }

    @Test
    void atTheSameParallelismASourceSubtaskRestoresItsOwnPosition() {
        CompletedCheckpoint cp = checkpoint(position(1, 11), position(0, 10));

        TaskRestore r = TaskRestores.forSubtask(cp, vertex(SOURCE, 2, true), 1);

        assertThat(r.sourcePosition()).containsExactly(11);
        assertThat(r.rescaledSourceStates()).isEmpty();
        assertThat(r.finished()).isFalse();
        assertThat(r.checkpointJobId()).as("whose checkpoint it is").isEqualTo(cp.jobId().value());
    }

    @Test
    void atAnotherParallelismEverySourceSubtaskGetsEveryOldPositionInSubtaskOrder() {
        TaskStateHandle finished = TaskStateHandle.finished(SOURCE, 1);
        CompletedCheckpoint cp = checkpoint(position(2, 12), finished, position(0, 10));

        for (int subtask = 0; subtask < 5; subtask++) {
            TaskRestore r = TaskRestores.forSubtask(cp, vertex(SOURCE, 5, true), subtask);

            assertThat(r.finished()).as("subtask 1 of 3 had finished, the others not").isFalse();
            assertThat(r.sourcePosition()).isNull();
            assertThat(r.rescaledSourceStates()).extracting(TaskStateHandle::subtaskIndex).containsExactly(0, 1, 2);
            assertThat(r.rescaledSourceStates().get(1).isFinished()).isTrue();
        }
    }

    @Test
    void afterARescaleASubtaskIsFinishedOnlyIfEveryOldOneWas() {
        CompletedCheckpoint someFinished = checkpoint(TaskStateHandle.finished(COUNT, 0),
                new TaskStateHandle(COUNT, 1, null, 0, null, null, null));
        CompletedCheckpoint allFinished = checkpoint(TaskStateHandle.finished(COUNT, 0), TaskStateHandle.finished(COUNT, 1));

        assertThat(TaskRestores.forSubtask(someFinished, vertex(COUNT, 3, false), 0).finished())
                .as("its input may come from the subtask that had not finished").isFalse();
        assertThat(TaskRestores.forSubtask(someFinished, vertex(COUNT, 2, false), 0).finished())
                .as("at the same parallelism: as it was").isTrue();
        for (int subtask = 0; subtask < 3; subtask++) {
            assertThat(TaskRestores.forSubtask(allFinished, vertex(COUNT, 3, false), subtask).finished()).isTrue();
        }
    }
}
