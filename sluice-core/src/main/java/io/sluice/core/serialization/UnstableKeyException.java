package io.sluice.core.serialization;

/**
 * A key whose hash would not be the same in every JVM (it hashes by identity), so Sluice cannot
 * place it in a key group; the message names the type and what to key by instead.
 */
public final class UnstableKeyException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    public UnstableKeyException(String message) {
        super(message);
    }
}
