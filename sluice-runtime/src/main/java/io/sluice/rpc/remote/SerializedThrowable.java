package io.sluice.rpc.remote;

/**
 * Stands in for a throwable that came over RPC but could not be recreated on the receiver (its
 * class is not on the receiver's class path, as for an exception of a job's jar, or it was not
 * serializable). Keeps the original's class name, message, stack trace, causes and suppressed
 * throwables; {@link #toString()} and so stack traces read as the original's
 * ({@code com.acme.MyException: message}). A throwable that was marked
 * {@link io.sluice.api.errors.UnrecoverableJobException} arrives as an {@link Unrecoverable}, which keeps
 * the marker. Immutable after construction.
 */
public class SerializedThrowable extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final String originalClassName;
    private final String originalMessage;

    SerializedThrowable(String originalClassName, String originalMessage, Throwable cause) {
        super(originalMessage, cause, true, true);
        this.originalClassName = originalClassName;
        this.originalMessage = originalMessage;
    }

    static SerializedThrowable of(String className, String message, StackTraceElement[] stackTrace,
                                  Throwable cause, Throwable[] suppressed, boolean unrecoverable) {
        SerializedThrowable t = unrecoverable
                ? new Unrecoverable(className, message, cause)
                : new SerializedThrowable(className, message, cause);
        t.setStackTrace(stackTrace == null ? new StackTraceElement[0] : stackTrace);
        if (suppressed != null) {
            for (Throwable s : suppressed) {
                if (s != null && s != t) {
                    t.addSuppressed(s);
                }
            }
        }
        return t;
    }

    /** The class of the throwable this stands for, e.g. {@code com.acme.jobs.BadRecordException}. */
    public String originalClassName() {
        return originalClassName;
    }

    /** The message of the original throwable (may be {@code null}). */
    public String originalMessage() {
        return originalMessage;
    }

    @Override
    public String toString() {
        return originalMessage == null ? originalClassName : originalClassName + ": " + originalMessage;
    }

    /** A stand-in for a throwable that was marked {@link io.sluice.api.errors.UnrecoverableJobException}. */
    public static final class Unrecoverable extends SerializedThrowable implements io.sluice.api.errors.UnrecoverableJobException {
        private static final long serialVersionUID = 1L;

        Unrecoverable(String originalClassName, String originalMessage, Throwable cause) {
            super(originalClassName, originalMessage, cause);
        }
    }
}
