package io.sluice.rpc.remote;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

/** Bounded waits on the futures of RPC calls, for the RPC tests. Any thread. */
final class RpcFutures {
    static final long WAIT_SECONDS = 10;

    private RpcFutures() {}

    /** The value {@code future} completes with, waiting at most {@link #WAIT_SECONDS}. */
    static <T> T get(CompletableFuture<T> future) throws Exception {
        return future.get(WAIT_SECONDS, TimeUnit.SECONDS);
    }

    /** The cause with which {@code future} failed; an assertion error if it completes or does not fail in time. */
    static Throwable failure(CompletableFuture<?> future) {
        try {
            future.get(WAIT_SECONDS, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            return e.getCause();
        } catch (Exception e) {
            throw new AssertionError("expected the future to fail, got " + e, e);
        }
        throw new AssertionError("expected the future to fail, but it completed");
    }
}
