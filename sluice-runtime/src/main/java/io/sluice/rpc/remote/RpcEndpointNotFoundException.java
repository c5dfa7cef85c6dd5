package io.sluice.rpc.remote;

/**
 * The called endpoint is not exposed on the receiving process: the object behind it ended (a job
 * master that finished, say) or this process does not serve it (it is not the leader).
 */
public final class RpcEndpointNotFoundException extends RpcException {
    public RpcEndpointNotFoundException(String message) {
        super(message);
    }
}
