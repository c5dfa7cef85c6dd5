package io.sluice.operators;

import java.io.Serializable;

/**
 * One step of a task's operator chain: receives records of type {@code IN} and emits to the
 * {@link Output} given at {@link #open}. Operators are created from the job graph (Java
 * serialization, once per deployment) and then driven only by their task thread: open, any number
 * of {@link #processElement}, {@link #finish} at end of input, then {@link #close} (also on
 * cancellation or failure).
 */
public interface StreamOperator<IN> extends Serializable {

    void open(OperatorContext context) throws Exception;

    void processElement(IN value) throws Exception;

    /** All input has been processed; emit whatever is buffered. Not called on cancellation. */
    default void finish() throws Exception {}

    default void close() throws Exception {}

    /** The task is about to snapshot for {@code checkpointId}: all records before its barrier were processed. */
    default void prepareSnapshot(long checkpointId) throws Exception {}

    default void notifyCheckpointComplete(long checkpointId) throws Exception {}

    /** A display name for logs and status, for example {@code Map} or {@code Sink: print}. */
    String name();
}
