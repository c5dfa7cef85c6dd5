package io.sluice.rpc.remote;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;

/**
 * A request sent and not yet answered: its id on the connection, what it calls (for messages),
 * the future its caller holds and the timeout that fails it. Completed once: by the answer, the
 * timeout, a lost connection or the service's close, whichever removes it from its connection first.
 */
final class PendingRequest {
    final long id;
    /** {@code TaskExecutorGateway.submitTask} */
    final String method;
    /** {@code 'taskexecutor' at 127.0.0.1:6124} */
    final String target;
    final CompletableFuture<Object> future;
    volatile ScheduledFuture<?> timeout;
    /** How many frames its connection had received when it was sent. */
    volatile long framesReceivedAtSend;

    PendingRequest(long id, String method, String target, CompletableFuture<Object> future) {
        this.id = id;
        this.method = method;
        this.target = target;
        this.future = future;
    }

    void cancelTimeout() {
        ScheduledFuture<?> t = timeout;
        if (t != null) {
            t.cancel(false);
        }
    }

    @Override
    public String toString() {
        return method + " to " + target;
    }
}
