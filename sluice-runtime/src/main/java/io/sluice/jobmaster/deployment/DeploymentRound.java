package io.sluice.jobmaster.deployment;

import io.sluice.checkpoint.TaskStateHandle;
import io.sluice.job.ExecutionAttemptId;
import io.sluice.job.ExecutionState;
import io.sluice.protocol.TaskExecutionState;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The executions of one deployment round: every subtask of the job, deployed together, with a
 * JVM-unique round number (reports from an earlier round carry another number and are ignored)
 * and the checkpoint the round restores from. Answers what the job master's states and the
 * checkpoint coordinator ask about the tasks: whether all ended or finished, which tasks trigger
 * and acknowledge checkpoints, which still restore.
 *
 * <p>Threading: the job master's main thread only (its {@link TaskDeployer} and the job master
 * check it before they hand a round out or change it).
 */
public final class DeploymentRound {
    private static final Logger LOG = LoggerFactory.getLogger(DeploymentRound.class);
    private static final DeploymentRound NONE = new DeploymentRound(-1, -1);

    private final int number;
    private final long restoreCheckpointId;
    private final Map<ExecutionAttemptId, Execution> executions = new LinkedHashMap<>();

    DeploymentRound(int number, long restoreCheckpointId) {
        this.number = number;
        this.restoreCheckpointId = restoreCheckpointId;
    }

    /** The round before the first deployment: no executions, number -1. */
    public static DeploymentRound none() {
        return NONE;
    }

    void add(Execution execution) {
        executions.put(execution.id(), execution);
    }

    /** The JVM-unique number of this round; -1 before the first deployment. */
    public int number() {
        return number;
    }

    /** The checkpoint this round restores from, or -1. */
    public long restoreCheckpointId() {
        return restoreCheckpointId;
    }

    public boolean contains(ExecutionAttemptId id) {
        return executions.containsKey(id);
    }

    /** The execution of {@code id}, or {@code null} if it is not part of this round. */
    public Execution get(ExecutionAttemptId id) {
        return executions.get(id);
    }

    /** Every execution, in deployment order. */
    public Collection<Execution> executions() {
        return Collections.unmodifiableCollection(executions.values());
    }

    public boolean allEnded() {
        return executions.values().stream().allMatch(e -> e.state().isTerminal());
    }

    public boolean allFinished() {
        return executions.values().stream().allMatch(e -> e.state() == ExecutionState.FINISHED);
    }

    public boolean anyRestoring() {
        return executions.values().stream().anyMatch(Execution::isRestoring);
    }

    /**
     * Applies a task's report of its state. Returns {@code null} when it changes nothing: the task is
     * not part of this round (a report of an earlier one), or it has already ended, or it reports that it
     * awaits its final checkpoint while it is no longer running (being cancelled).
     */
    public TaskReport apply(TaskExecutionState update) {
        Execution execution = executions.get(update.attemptId());
        if (execution == null) {
            LOG.debug("Ignoring {} of {}: not part of the current deployment", update.state(), update.attemptId());
            return null;
        }
        if (execution.state().isTerminal()) {
            return null;
        }
        ExecutionState before = execution.state();
        if (update.awaitingFinalCheckpoint() && before != ExecutionState.RUNNING) {
            // Being cancelled (CANCELING): the task's end report decides; a RUNNING now would hide the cancel.
            LOG.debug("Ignoring that {} awaits its final checkpoint: it is {}", update.attemptId(), before);
            return null;
        }
        boolean wasRestoring = execution.isRestoring();
        execution.setState(update.state());
        if (update.awaitingFinalCheckpoint()) {
            execution.setAwaitingFinalCheckpoint();
        }
        boolean stoppedRestoring = wasRestoring
                && (update.state() == ExecutionState.RUNNING || update.state().isTerminal());
        if (stoppedRestoring) {
            execution.setRestoring(false);
        }
        boolean allRestored = stoppedRestoring && update.state() == ExecutionState.RUNNING
                && executions.values().stream().allMatch(e -> !e.isRestoring()
                        && (e.state() == ExecutionState.RUNNING || e.state() == ExecutionState.FINISHED));
        return new TaskReport(execution, before, wasRestoring, stoppedRestoring, allRestored);
    }

    /** Tasks of a lost task executor: how many had not ended, and whether one of them was still restoring. */
    public record LostTasks(int count, boolean wereRestoring) {
    }

    /**
     * The task executor {@code taskExecutorId} is gone: its tasks that had not ended count as
     * failed (no report will come from them).
     */
    public LostTasks markLost(String taskExecutorId) {
        List<Execution> lost = executions.values().stream()
                .filter(e -> !e.state().isTerminal() && e.taskExecutor().id().equals(taskExecutorId)).toList();
        boolean wereRestoring = false;
        for (Execution e : lost) {
            e.setState(ExecutionState.FAILED);
            wereRestoring |= e.isRestoring();
            e.setRestoring(false);
        }
        return new LostTasks(lost.size(), wereRestoring);
    }

    /** Asks every task that has not ended to cancel; it stays CANCELING until it reports. */
    void cancelAll() {
        for (Execution e : executions.values()) {
            if (!e.state().isTerminal()) {
                e.setState(e.state() == ExecutionState.DEPLOYING || e.state() == ExecutionState.RUNNING
                        ? ExecutionState.CANCELING : e.state());
                e.taskExecutor().cancelTask(e.id());
            }
        }
    }

    // ---------------------------------------------------------------- what checkpoints need

    /**
     * Every task runs or has finished, and some task can be triggered: a source still runs to inject the
     * barriers, or a task awaits its final checkpoint (also when every source has finished).
     */
    public boolean readyForCheckpoint() {
        return !executions.isEmpty()
                && executions.values().stream().allMatch(e -> e.state() == ExecutionState.RUNNING
                        || e.state() == ExecutionState.FINISHED)
                && executions.values().stream().anyMatch(e -> e.state() == ExecutionState.RUNNING
                        && (e.isSource() || e.isAwaitingFinalCheckpoint()));
    }

    /** The running sources: they receive the trigger. */
    public List<ExecutionAttemptId> runningSources() {
        return executions.values().stream().filter(e -> e.isSource() && e.state() == ExecutionState.RUNNING)
                .map(Execution::id).toList();
    }

    /** The tasks awaiting their final checkpoint: their inputs ended, so they receive the trigger directly. */
    public List<ExecutionAttemptId> awaitingFinalCheckpoint() {
        return executions.values().stream().filter(Execution::isAwaitingFinalCheckpoint).map(Execution::id).toList();
    }

    /** The tasks that have not finished: they must acknowledge. */
    public List<ExecutionAttemptId> notFinished() {
        return executions.values().stream().filter(e -> e.state() != ExecutionState.FINISHED).map(Execution::id)
                .toList();
    }

    /** The finished tasks, part of every checkpoint as finished. */
    public List<TaskStateHandle> finishedStates() {
        return executions.values().stream().filter(e -> e.state() == ExecutionState.FINISHED)
                .map(e -> TaskStateHandle.finished(e.id().vertexId(), e.id().subtaskIndex())).toList();
    }
}
