package io.sluice.taskexecutor;

import io.sluice.job.ExecutionState;

/**
 * The phases of one task attempt, and which moves between them are allowed:
 *
 * <pre>
 *  CREATED ──► DEPLOYING ──► RUNNING ──► FINISHING ──┬───────────────────────────────► FINISHED
 *     │            │            │            │       └─► AWAITING_FINAL_CHECKPOINT ──► FINISHED
 *     │            └────────────┴────────────┴──────────────────┴────────────────────► FAILED
 *     └────────────┴────────────┴────────────┴──────────────────┴────────────────────► CANCELING ──► CANCELED
 * </pre>
 *
 * <p>{@code DEPLOYING}: the task thread builds the outputs, inputs, keyed state (restored) and
 * operator chain. {@code RUNNING}: the record loop. {@code FINISHING}: the input ended; the
 * operators finish, the outputs end and the state uploads still running are awaited.
 * {@code AWAITING_FINAL_CHECKPOINT}: an operator of the chain commits its last output only once a
 * checkpoint covering it completed (a two-phase-commit sink; {@code StreamOperator.needsFinalCheckpoint}):
 * the task takes the checkpoints the job master triggers at it directly until one of them completed,
 * then the operators hand their last output over and the task finishes.
 * {@code CANCELING}: a cancel came; whatever the task thread does next ends in {@code CANCELED}.
 * The three ended phases have no way out.
 *
 * <p>The job master hears only some phases ({@link #reportedAs()}): {@code RUNNING} and the end, and
 * {@code AWAITING_FINAL_CHECKPOINT} as {@code RUNNING} with the flag
 * {@link io.sluice.protocol.TaskExecutionState#awaitingFinalCheckpoint()}.
 */
enum TaskPhase {
    CREATED, DEPLOYING, RUNNING, FINISHING, AWAITING_FINAL_CHECKPOINT, CANCELING, FINISHED, CANCELED, FAILED;

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
            case FINISHING -> next == FINISHED || next == AWAITING_FINAL_CHECKPOINT || next == CANCELING
                    || next == FAILED;
            case AWAITING_FINAL_CHECKPOINT -> next == FINISHED || next == CANCELING || next == FAILED;
            case CANCELING -> next == CANCELED;
            case FINISHED, CANCELED, FAILED -> false;
        };
    }

    /** The state the job master hears when the task enters this phase, or {@code null}: none. */
    ExecutionState reportedAs() {
        return switch (this) {
            case RUNNING, AWAITING_FINAL_CHECKPOINT -> ExecutionState.RUNNING;
            case FINISHED -> ExecutionState.FINISHED;
            case CANCELED -> ExecutionState.CANCELED;
            case FAILED -> ExecutionState.FAILED;
            case CREATED, DEPLOYING, FINISHING, CANCELING -> null;
        };
    }
}
