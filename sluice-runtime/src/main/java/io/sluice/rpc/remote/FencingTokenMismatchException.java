package io.sluice.rpc.remote;

import java.util.UUID;

/**
 * A fenced endpoint refused a call made for another leader session than its current one: the
 * caller speaks for an old leader, or the endpoint no longer (or not yet) leads. The tokens are
 * kept as fields where the class is known to the receiver of the error (all Sluice processes).
 */
public final class FencingTokenMismatchException extends RpcException {
    private final UUID sentToken;
    private final UUID currentToken;

    public FencingTokenMismatchException(String message) {
        this(message, null, null);
    }

    public FencingTokenMismatchException(String message, UUID sentToken, UUID currentToken) {
        super(message);
        this.sentToken = sentToken;
        this.currentToken = currentToken;
    }

    /** The token the refused call carried ({@code null}: none). */
    public UUID sentToken() {
        return sentToken;
    }

    /** The endpoint's token when it refused the call ({@code null}: it had none, it does not lead). */
    public UUID currentToken() {
        return currentToken;
    }

    /** Whether {@code error} or one of its causes is a fencing refusal (also when it arrived as a SerializedThrowable). */
    public static boolean isCause(Throwable error) {
        for (Throwable t = error; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof FencingTokenMismatchException) {
                return true;
            }
            if (t instanceof SerializedThrowable s && FencingTokenMismatchException.class.getName().equals(s.originalClassName())) {
                return true;
            }
        }
        return false;
    }
}
