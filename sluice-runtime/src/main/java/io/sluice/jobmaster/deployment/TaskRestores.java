package io.sluice.jobmaster.deployment;

import io.sluice.checkpoint.CompletedCheckpoint;
import io.sluice.checkpoint.TaskStateHandle;
import io.sluice.graph.JobVertex;
import io.sluice.protocol.TaskRestore;
import io.sluice.state.KeyGroupRange;
import io.sluice.state.KeyGroups;
import java.util.ArrayList;
import java.util.List;

/** What one subtask restores from a completed checkpoint. Stateless; any thread. */
final class TaskRestores {
    private TaskRestores() {
    }

    /**
     * The state subtask {@code subtask} of {@code vertex} restores from {@code cp}: its source
     * position (after a rescale: every old subtask's, to take its share from) and the handles (state files
     * or inline state) holding its key groups; or, if it had finished, that it is finished (it emits nothing
     * again).
     */
    static TaskRestore forSubtask(CompletedCheckpoint cp, JobVertex vertex, int subtask) {
        TaskStateHandle own = cp.stateOf(vertex.id(), subtask);
        int before = cp.parallelismOf(vertex.id());
        boolean rescaled = before > 0 && before != vertex.parallelism();
        List<TaskStateHandle> all = rescaled ? statesOf(cp, vertex) : List.of();
        // At the checkpoint's parallelism a subtask is finished if it was; after a rescale only if all of them
        // were (its input or share of the source may come from any of them).
        if (rescaled ? all.stream().allMatch(TaskStateHandle::isFinished) : own != null && own.isFinished()) {
            return new TaskRestore(cp.checkpointId(), null, List.of(), true, List.of(), List.of(), cp.jobId().value());
        }
        if (rescaled && vertex.isSource()) {
            // Refused at the start of the job unless the source redistributes (SourceParallelismCheck).
            return new TaskRestore(cp.checkpointId(), null, List.of(), false, operatorStateHandles(cp, vertex, subtask),
                    all, cp.jobId().value());
        }
        List<TaskStateHandle> keyed = new ArrayList<>();
        if (vertex.hasKeyedState()) {
            KeyGroupRange mine = KeyGroups.rangeForSubtask(subtask, vertex.maxParallelism(), vertex.parallelism());
            for (TaskStateHandle h : cp.taskStates()) {
                if (h.vertexId() == vertex.id() && h.hasKeyedState() && h.keyGroupRange() != null
                        && h.keyGroupRange().start() <= mine.end() && mine.start() <= h.keyGroupRange().end()) {
                    keyed.add(h);
                }
            }
        }
        return new TaskRestore(cp.checkpointId(), own == null ? null : own.sourcePosition(), keyed, false,
                operatorStateHandles(cp, vertex, subtask), List.of(), cp.jobId().value());
    }

    /** The handles of {@code vertex}'s subtasks in {@code cp}, by subtask index. */
    private static List<TaskStateHandle> statesOf(CompletedCheckpoint cp, JobVertex vertex) {
        List<TaskStateHandle> out = new ArrayList<>();
        for (TaskStateHandle h : cp.taskStates()) {
            if (h.vertexId() == vertex.id()) {
                out.add(h);
            }
        }
        out.sort(java.util.Comparator.comparingInt(TaskStateHandle::subtaskIndex));
        return out;
    }

    /**
     * The handles with operator state (a two-phase-commit sink's committables) that {@code subtask}
     * restores: its own, then those of subtasks beyond the current parallelism that map to it
     * ({@code s % parallelism}), so that no committable is left behind when the parallelism was lowered.
     */
    static List<TaskStateHandle> operatorStateHandles(CompletedCheckpoint cp, JobVertex vertex, int subtask) {
        List<TaskStateHandle> out = new ArrayList<>();
        TaskStateHandle own = cp.stateOf(vertex.id(), subtask);
        if (own != null && own.hasOperatorState()) {
            out.add(own);
        }
        for (TaskStateHandle h : cp.taskStates()) {
            if (h.vertexId() == vertex.id() && h.hasOperatorState() && h.subtaskIndex() >= vertex.parallelism()
                    && h.subtaskIndex() % vertex.parallelism() == subtask) {
                out.add(h);
            }
        }
        return out;
    }
}
