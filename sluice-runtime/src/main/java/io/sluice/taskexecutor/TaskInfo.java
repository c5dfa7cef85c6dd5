package io.sluice.taskexecutor;

import io.sluice.graph.JobVertex;
import io.sluice.protocol.TaskDeploymentDescriptor;

/**
 * Who a task is, as its operators and messages name it. Immutable.
 *
 * @param taskName       {@code <vertex name> (<subtask + 1>/<parallelism>)}, e.g. {@code Count (2/4)}
 * @param attemptNumber  how many times the job restarted before this deployment
 */
record TaskInfo(String taskName, int subtaskIndex, int parallelism, int maxParallelism, int attemptNumber) {

    static TaskInfo of(TaskDeploymentDescriptor tdd) {
        JobVertex v = tdd.vertex();
        return new TaskInfo(v.name() + " (" + (tdd.subtaskIndex() + 1) + "/" + v.parallelism() + ")",
                tdd.subtaskIndex(), v.parallelism(), v.maxParallelism(), tdd.attemptNumber());
    }
}
