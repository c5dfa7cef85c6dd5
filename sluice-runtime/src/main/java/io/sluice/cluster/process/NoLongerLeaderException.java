package io.sluice.cluster.process;

import io.sluice.rpc.remote.RpcException;

/**
 * A standby forwarded a call to the job manager that leader retrieval named, and that job manager
 * no longer leads (it was deposed, a failover is in progress). Retrying resolves the leader anew.
 */
public final class NoLongerLeaderException extends RpcException {
    public NoLongerLeaderException(String message) {
        super(message);
    }
}
