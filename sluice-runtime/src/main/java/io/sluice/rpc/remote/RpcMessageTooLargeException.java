package io.sluice.rpc.remote;

/** A request or an answer is larger than {@code rpc.max-message-size} of the sender or the receiver. */
public final class RpcMessageTooLargeException extends RpcException {
    public RpcMessageTooLargeException(String message) {
        super(message);
    }

    public RpcMessageTooLargeException(String message, Throwable cause) {
        super(message, cause);
    }
}
