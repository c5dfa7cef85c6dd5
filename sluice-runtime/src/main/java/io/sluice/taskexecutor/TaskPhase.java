package io.sluice.taskexecutor;

import io.sluice.job.ExecutionState;

/**
 * The phases of one task attempt, and which moves between them are allowed:
 *
 * <pre>
 *  CREATED ──► DEPLOYING ──► RUNNING ──► FINISHING ──► FINISHED
 *     │            │   └─────────┴───────────┴───────► FAILED
 *     └────────────┴───────┴─────────┴───────────────► CANCELING ──► CANCELED
 * </pre>
 *
 * <p>{@code DEPLOYING}: the task thread builds the outputs, inputs, keyed state (restored) and
 * operator chain. {@code RUNNING}: the record loop. {@code FINISHING}: the input ended; the
 * operators finish, the outputs end and the state uploads still running are awaited.
 * {@code CANCELING}: a cancel came; whatever the task thread does next ends in {@code CANCELED}.
 * The three ended phases have no way out.
 *
 * <p>The job master hears only some phases ({@link #reportedAs()}): the same states a task has
 * always reported ({@code RUNNING} and the end), so the split of phases changes nothing on the wire.
 */
enum TaskPhase {
    CREATED, DEPLOYING, RUNNING, FINISHING, CANCELING, FINISHED, CANCELED, FAILED;

    boolean isEnded() {
        return this == FINISHED || this == CANCELED || this == FAILED;
    }

    /** Whether a cancel came (the task is ending, or ended, as {@code CANCELED}). */
    boolean isCancelled() {
        return this == CANCELING || this == CANCELED;
    }

    /** Whether {@code this -> next} is a move of the task's lifecycle. */
    boolean mayMoveTo(TaskPhase next) {
        return switch (this) {
            case CREATED -> next == DEPLOYING || next == CANCELING;
            case DEPLOYING -> next == RUNNING || next == CANCELING || next == FAILED;
            case RUNNING -> next == FINISHING || next == CANCELING || next == FAILED;
            case FINISHING -> next == FINISHED || next == CANCELING || next == FAILED;
            case CANCELING -> next == CANCELED;
            case FINISHED, CANCELED, FAILED -> false;
        };
    }

    /** The state the job master hears when the task enters this phase, or {@code null}: none. */
    ExecutionState reportedAs() {
        return switch (this) {
            case RUNNING -> ExecutionState.RUNNING;
            case FINISHED -> ExecutionState.FINISHED;
            case CANCELED -> ExecutionState.CANCELED;
            case FAILED -> ExecutionState.FAILED;
            case CREATED, DEPLOYING, FINISHING, CANCELING -> null;
        };
    }
}
