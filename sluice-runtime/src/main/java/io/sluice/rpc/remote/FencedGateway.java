package io.sluice.rpc.remote;

import java.util.UUID;

/**
 * A gateway object that is fenced when it is passed by reference: the export an {@link RpcService}
 * makes of it (for example a job master passed to a task executor in {@code submitTask}) refuses
 * every call that does not carry {@link #fencingToken()} as it is at the time of the call, and the
 * reference sent tells the receiver's proxy the token current when it was sent. Not a gateway
 * interface itself: its method is never called remotely.
 */
public interface FencedGateway {

    /**
     * The leader session this object speaks for now, or {@code null} when it speaks for none (its
     * leadership ended: then every call to its export is refused). Called on RPC I/O threads: must
     * answer from memory, thread-safely, without blocking.
     */
    UUID fencingToken();
}
