package io.sluice.rpc.remote;

/**
 * A remote call failed in the RPC layer itself (not in the called gateway): no connection, no
 * answer in time, a message too large, an unknown endpoint, a fencing mismatch, or a value that
 * could not be (de)serialized. The message names the call and its target.
 */
public class RpcException extends RuntimeException {
    public RpcException(String message) {
        super(message);
    }

    public RpcException(String message, Throwable cause) {
        super(message, cause);
    }
}
