package io.sluice.rpc.remote;

import java.util.concurrent.TimeoutException;

/**
 * A request got no answer within {@code rpc.timeout}. A {@link TimeoutException}, so callers that
 * treat timeouts specially keep working for remote gateways.
 */
public final class RpcTimeoutException extends TimeoutException {
    public RpcTimeoutException(String message) {
        super(message);
    }
}
