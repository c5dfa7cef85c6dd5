package io.sluice.taskexecutor;

import java.util.function.BooleanSupplier;

/**
 * The wait of a task in {@link TaskPhase#AWAITING_FINAL_CHECKPOINT}: its input ended and an operator of
 * its chain hands its last output over only once a checkpoint that covers it completed. The stages:
 *
 * <pre>
 *  AWAITING_TRIGGER ──(a checkpoint taken: {@link #taken})──► AWAITING_COMPLETION
 *      ──({@link #completed} of that checkpoint or a later one)──► COMPLETED
 * </pre>
 *
 * <p>The first checkpoint the task takes after its input ended is its final one: the job master
 * triggers it at the task directly (no barrier comes through ended inputs). If that checkpoint does not
 * complete (declined elsewhere, timed out), the next one the task takes covers the same output, so a
 * completion of any checkpoint at or after the first counts. Nothing here commits: the failure or
 * cancel of a waiting task leaves its last output uncommitted, in no checkpoint but the one it took.
 *
 * <p>Threading: task thread only; the triggers and notices reach it through the task's mailbox.
 */
final class FinalCheckpointWait {
    /** How long the task waits for mail before it looks again whether it was cancelled. */
    static final long MAIL_POLL_TIMEOUT_NANOS = 10_000_000L;

    enum Stage { AWAITING_TRIGGER, AWAITING_COMPLETION, COMPLETED }

    private final String taskName;
    private Stage stage = Stage.AWAITING_TRIGGER;
    /** The first checkpoint taken while waiting; -1 before. */
    private long finalCheckpointId = -1;

    FinalCheckpointWait(String taskName) {
        this.taskName = taskName;
    }

    /** The task took checkpoint {@code checkpointId} while waiting. */
    void taken(long checkpointId) {
        if (stage == Stage.AWAITING_TRIGGER) {
            stage = Stage.AWAITING_COMPLETION;
            finalCheckpointId = checkpointId;
        }
    }

    /** Checkpoint {@code checkpointId} (and every one before it) completed. */
    void completed(long checkpointId) {
        if (stage == Stage.AWAITING_COMPLETION && checkpointId >= finalCheckpointId) {
            stage = Stage.COMPLETED;
        }
    }

    Stage stage() {
        return stage;
    }

    /** The first checkpoint taken while waiting, or -1. */
    long finalCheckpointId() {
        return finalCheckpointId;
    }

    /**
     * Runs the task's mailbox (triggers, notices) until the final checkpoint completed ({@code true}) or the
     * task was cancelled ({@code false}; an interrupt may also end it with {@link InterruptedException}).
     * Processing time stands still: the operators have finished, and a timer firing now would emit records
     * after the end of the input (into a sink that has pre-committed its last output). A commit that failed
     * for good fails the task at the final checkpoint's snapshot, or when the operators hand their last
     * output over.
     */
    boolean await(TaskMailbox mailbox, BooleanSupplier cancelled) throws Exception {
        while (stage != Stage.COMPLETED) {
            if (cancelled.getAsBoolean()) {
                return false;
            }
            mailbox.awaitAndDrain(MAIL_POLL_TIMEOUT_NANOS);
        }
        return true;
    }

    @Override
    public String toString() {
        return "final checkpoint of " + taskName + ": " + stage
                + (finalCheckpointId >= 0 ? " (checkpoint " + finalCheckpointId + ")" : "");
    }
}
