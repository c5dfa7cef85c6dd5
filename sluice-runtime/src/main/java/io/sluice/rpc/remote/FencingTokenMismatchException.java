package io.sluice.rpc.remote;

/**
 * A fenced endpoint refused a call made for another leader session than its current one: the
 * caller speaks for an old leader, or the endpoint no longer (or not yet) leads.
 */
public final class FencingTokenMismatchException extends RpcException {
    public FencingTokenMismatchException(String message) {
        super(message);
    }
}
