package io.sluice.jar;

/**
 * A jar could not be stored or its program could not be run; {@link #kind()} tells a client what
 * kind of mistake it was (a REST handler maps it to a status code), the message what to do.
 */
public final class JarException extends RuntimeException {
    /** What went wrong. */
    public enum Kind {
        /** The file is not a jar, or has no usable entry class. */
        INVALID,
        /** The program's {@code main} threw, or ended without building a job. */
        PROGRAM_FAILED
    }

    private final Kind kind;

    public JarException(Kind kind, String message) {
        super(message);
        this.kind = kind;
    }

    public JarException(Kind kind, String message, Throwable cause) {
        super(message, cause);
        this.kind = kind;
    }

    public Kind kind() {
        return kind;
    }
}
