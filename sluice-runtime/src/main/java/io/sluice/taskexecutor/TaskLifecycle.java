package io.sluice.taskexecutor;

import io.sluice.job.ExecutionAttemptId;
import io.sluice.job.ExecutionState;
import io.sluice.protocol.TaskExecutionState;
import java.util.Objects;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The lifecycle of one task attempt ({@link TaskPhase}), changed only by {@link #transitionTo}:
 * it logs {@code from -> to}, reports the phases the job master hears to the task's state listener
 * (in the order of the moves), and refuses a move the lifecycle does not have.
 *
 * <p>Threads: the task thread makes every move except {@code CANCELING}, which the task executor's
 * main thread makes ({@code Task.cancel}). The two race, so a move is decided under this object's
 * lock against the phase it finds: a move the task thread planned but that a cancel overtook (say
 * {@code RUNNING -> FINISHING} after {@code RUNNING -> CANCELING}) is refused with {@code false},
 * and the task thread then ends the task as cancelled. Any other illegal move is a programming error
 * and throws, as does a move made from inside the listener (re-entrant). The listener runs under the
 * lock, so it must only hand the report on (the task executor queues it on its main thread).
 * {@link #phase()} and the {@code is*} queries read a volatile field and may be called from any thread.
 */
final class TaskLifecycle {
    private static final Logger LOG = LoggerFactory.getLogger(TaskLifecycle.class);

    private final ExecutionAttemptId attemptId;
    private final String taskName;
    private final Consumer<TaskExecutionState> listener;
    /** Written under {@code this}; read by any thread. */
    private volatile TaskPhase phase = TaskPhase.CREATED;
    /** The state the job master heard last ({@code DEPLOYING} before the first report), for metrics. */
    private volatile ExecutionState reported = ExecutionState.DEPLOYING;
    /** Set while the listener runs (guarded by {@code this}): a move from inside it is refused. */
    private boolean transitioning;

    TaskLifecycle(ExecutionAttemptId attemptId, String taskName, Consumer<TaskExecutionState> listener) {
        this.attemptId = Objects.requireNonNull(attemptId, "attemptId");
        this.taskName = Objects.requireNonNull(taskName, "taskName");
        this.listener = Objects.requireNonNull(listener, "listener");
    }

    /** Like {@link #transitionTo(TaskPhase, Throwable)} without a failure. */
    boolean transitionTo(TaskPhase next) {
        return transitionTo(next, null);
    }

    /**
     * Moves to {@code next}, reporting it to the listener when the job master hears that phase.
     *
     * @param failure the cause, for {@link TaskPhase#FAILED}; {@code null} otherwise
     * @return {@code true} when the task is now in {@code next}; {@code false} when a cancel came
     *         first (the phase is {@code CANCELING} or ended) and the move no longer applies
     * @throws IllegalStateException for a move the lifecycle does not have from the current phase
     *         (other than one overtaken by a cancel), or one made from inside the listener
     */
    synchronized boolean transitionTo(TaskPhase next, Throwable failure) {
        TaskPhase from = phase;
        if (transitioning) {
            throw new IllegalStateException("Task " + taskName + " was asked to move " + from + " -> " + next
                    + " while reporting its previous move; moves must not be made from the state listener");
        }
        if (!from.mayMoveTo(next)) {
            if (from.isCancelled() || from.isEnded()) {
                LOG.debug("Task {} ({}): {} -> {} refused, the task is {} already", taskName, attemptId, from, next, from);
                return false;
            }
            throw new IllegalStateException("Task " + taskName + " (" + attemptId + ") cannot move " + from + " -> "
                    + next + "; its lifecycle is CREATED -> DEPLOYING -> RUNNING -> FINISHING (-> AWAITING_FINAL_CHECKPOINT)"
                    + " -> FINISHED,"
                    + " with CANCELING -> CANCELED and FAILED on the way");
        }
        phase = next;
        LOG.info("Task {} ({}): {} -> {}", taskName, attemptId, from, next);
        ExecutionState report = next.reportedAs();
        if (report != null) {
            reported = report;
            transitioning = true;
            try {
                listener.accept(new TaskExecutionState(attemptId, report, failure,
                        next == TaskPhase.AWAITING_FINAL_CHECKPOINT));
            } finally {
                transitioning = false;
            }
        }
        return true;
    }

    TaskPhase phase() {
        return phase;
    }

    /** Whether a cancel came ({@code CANCELING} or {@code CANCELED}). Any thread. */
    boolean isCancelled() {
        return phase.isCancelled();
    }

    boolean isEnded() {
        return phase.isEnded();
    }

    /** The state the job master heard last; {@code DEPLOYING} before the first report. Any thread. */
    ExecutionState reportedState() {
        return reported;
    }
}
