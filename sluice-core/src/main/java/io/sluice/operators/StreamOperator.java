package io.sluice.operators;

import java.io.Serializable;

/**
 * One step of a task's operator chain: receives records of type {@code IN} and emits to the
 * {@link Output} given at {@link #open}. Operators are created from the job graph (Java
 * serialization, once per deployment) and then driven only by their task thread: open, any number
 * of {@link #processElement}, {@link #finish} at end of input, then {@link #close} (also on
 * cancellation or failure).
 *
 * <p>Checkpoints. An operator takes part in every checkpoint of its task, on the task thread,
 * between records, in this order:
 * <ol>
 *   <li>{@link #prepareSnapshot} when the checkpoint's barrier reached the task: every record before
 *       the barrier was processed and none after it. The task then snapshots its keyed state and
 *       forwards the barrier. A two-phase-commit sink pre-commits here.</li>
 *   <li>{@link #notifyCheckpointComplete} once the job master completed that checkpoint (all tasks
 *       acknowledged it and its metadata is durable). A two-phase-commit sink commits here. The
 *       notice is a one-way message and may not arrive (the task restarted meanwhile), so the notice
 *       for {@code n} stands for every checkpoint up to {@code n}.</li>
 *   <li>{@link #notifyCheckpointAborted} when the checkpoint will not complete (declined, timed out,
 *       subsumed while pending), if the task is told; nothing may depend on hearing it.</li>
 * </ol>
 * At the end of a bounded input {@link #finish} runs; if an operator of the chain
 * {@linkplain #needsFinalCheckpoint needs a final checkpoint}, the task then takes part in one more
 * checkpoint (steps 1 and 2 above, with no records in between) before it ends.
 * After a failure the task restores from a completed checkpoint: {@link OperatorContext#restoredCheckpointId()}
 * names it at {@link #open}, before the first record.
 */
public interface StreamOperator<IN> extends Serializable {

    void open(OperatorContext context) throws Exception;

    void processElement(IN value) throws Exception;

    /**
     * The operator's input watermark advanced to {@code watermark} (the minimum over the task's
     * non-idle input channels, or what an upstream operator of the chain emitted). Operators forward
     * it to their output, after firing what it makes due (event-time timers, windows).
     */
    void processWatermark(long watermark) throws Exception;

    /** All of the operator's inputs became idle ({@code true}), or one became active again. Forwarded by default. */
    void processIdleStatus(boolean idle) throws Exception;

    /**
     * Processing time is now {@code nowMillis} (the task's injected clock, wall-clock milliseconds).
     * The task calls it between batches of records and while waiting for input; operators with
     * processing-time timers or periodic watermarks act here. Nothing by default.
     */
    default void advanceProcessingTime(long nowMillis) throws Exception {}

    /**
     * The earliest processing time, in milliseconds of the task's clock, at which {@link #advanceProcessingTime}
     * has something to do, given that it is {@code nowMillis} now; {@link Long#MAX_VALUE} for nothing until a
     * record, watermark or checkpoint arrives (the default, right for operators that do not use processing
     * time). A task with no input and no mail sleeps until the earliest of its operators' times, so an idle
     * job costs no CPU. An operator that overrides {@code advanceProcessingTime} overrides this too; one that
     * does not is asked every 10 ms, as all were before. Task thread only.
     */
    default long nextProcessingTimeMillis(long nowMillis) {
        return Long.MAX_VALUE;
    }

    /** All input has been processed; emit whatever is buffered. Not called on cancellation. */
    default void finish() throws Exception {}

    /**
     * Whether the task must take one more checkpoint after {@link #finish} before it may end: {@code true}
     * for an operator that hands its last output over only once a checkpoint that covers it completed (a
     * two-phase-commit sink). The task then keeps running in its "awaiting final checkpoint" phase: it
     * takes the next checkpoint the job master triggers at it directly (its inputs have ended, so no
     * barrier reaches it through them), hears {@link #notifyCheckpointComplete} of that checkpoint (or a
     * later one), calls {@link #finishAfterFinalCheckpoint} and only then reports {@code FINISHED}.
     * Asked once, on the task thread, right after {@link #finish}. {@code false} by default.
     */
    default boolean needsFinalCheckpoint() {
        return false;
    }

    /**
     * The task's final checkpoint completed ({@link #notifyCheckpointComplete} of it, or of a later one,
     * ran): returns once what the operator handed over at that notice is done (a two-phase-commit sink:
     * every commit). The task reports {@code FINISHED} after it returns. Called only when some operator of
     * the chain {@linkplain #needsFinalCheckpoint needed a final checkpoint}; task thread; interrupted by a
     * cancel. Nothing by default.
     */
    default void finishAfterFinalCheckpoint() throws Exception {}

    default void close() throws Exception {}

    /** The task is about to snapshot for {@code checkpointId}: all records before its barrier were processed. */
    default void prepareSnapshot(long checkpointId) throws Exception {}

    /**
     * The operator's own state for {@code checkpointId} (not keyed state), taken on the task thread right
     * after {@link #prepareSnapshot} and before the barrier goes downstream, or {@code null} for none (the
     * default). The bytes are stored with the checkpoint and handed back on restore through
     * {@link OperatorContext#restoredState()}.
     */
    default byte[] snapshotState(long checkpointId) throws Exception {
        return null;
    }

    /** Checkpoint {@code checkpointId} (and every one before it) completed. Task thread. Nothing by default. */
    default void notifyCheckpointComplete(long checkpointId) throws Exception {}

    /** Checkpoint {@code checkpointId} will not complete. Task thread. Nothing by default. */
    default void notifyCheckpointAborted(long checkpointId) throws Exception {}

    /** A display name for logs and status, for example {@code Map} or {@code Sink: print}. */
    String name();
}
