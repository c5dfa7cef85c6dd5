package io.sluice.api.errors;

/**
 * Marks an exception that reports an error in the job itself which no restart can fix: the same
 * records and the same code would fail the same way again. The runtime fails such a job at once,
 * with this exception as the cause in its {@code JobResult}, instead of spending its restart budget.
 *
 * <p>An interface rather than a class, so that the exceptions keep the types they always had
 * (a missing serializer is still a {@code SerializationException}, a null key still a
 * {@code NullPointerException}): {@link io.sluice.core.serialization.MissingSerializerException}, {@link NullKeyException},
 * {@link StateKindConflictException} and {@link KeyedStateUnavailableException}. User code may
 * implement it on its own exceptions, too. The runtime looks for it along the whole cause chain.
 */
public interface UnrecoverableJobException {

    /** Whether {@code t} or any of its causes is marked {@link UnrecoverableJobException}. */
    static boolean isCauseOf(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
            if (c instanceof UnrecoverableJobException) {
                return true;
            }
        }
        return false;
    }
}
