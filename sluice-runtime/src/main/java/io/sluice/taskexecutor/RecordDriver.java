package io.sluice.taskexecutor;

/**
 * Drives a task's records into the head of its operator chain until the input ends or the task is
 * cancelled, and in between runs the task's mailbox (checkpoint triggers, notices), advances
 * processing time (timers, periodic watermarks, idleness) and hands partly filled buffers on.
 * One of three, fixed at set-up: a {@link SourceDriver} for a source, an {@link InputGateDriver} for
 * a task that reads other tasks, a {@link FinishedDriver} for a task restored as finished.
 *
 * <p>Threads: the task thread runs {@link #run}; {@link #recordsIn} is read racily by other threads
 * for metrics.
 */
sealed interface RecordDriver permits SourceDriver, InputGateDriver, FinishedDriver {

    /** Runs until the end of the input (returns) or a cancel (returns, or throws if interrupted). */
    void run() throws Exception;

    /** Records read so far (a source: records its reader emitted). */
    long recordsIn();

    /**
     * Whether the operators finish at the end of the input: not for a task restored as finished,
     * whose operators finished before the checkpoint it restores.
     */
    default boolean finishesOperators() {
        return true;
    }
}
