package io.sluice.rpc.remote;

/** The peer could not be reached, or the connection to it was lost before the answer came. */
public final class RpcConnectionException extends RpcException {
    public RpcConnectionException(String message, Throwable cause) {
        super(message, cause);
    }
}
