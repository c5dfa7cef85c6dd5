package io.sluice.api.functions;

/**
 * Implemented by user functions that need a lifecycle or state. {@link #open} is called on the
 * task thread before the first record, after state has been restored; {@link #close} after the
 * last record or on cancellation.
 */
public interface RichFunction {
    default void open(RuntimeContext context) throws Exception {}

    default void close() throws Exception {}
}
