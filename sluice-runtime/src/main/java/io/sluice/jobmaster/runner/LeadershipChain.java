package io.sluice.jobmaster.runner;

import io.sluice.rpc.MainThreadExecutor;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one serialized chain on which a runner's leadership grants and revokes run: an operation
 * starts only once the previous one's future has completed. A revoke's future completes when the
 * job master it suspends has ended (its tasks have all stopped), so a grant that follows never
 * starts a second set of tasks of the same job while the first still runs.
 *
 * <p>Threading: {@link #enqueue} on the runner's main thread; operations run there too (at once
 * when nothing is in progress, else queued on the main thread when the previous one completes).
 */
final class LeadershipChain {
    private static final Logger LOG = LoggerFactory.getLogger(LeadershipChain.class);

    private final MainThreadExecutor mainThread;
    private final String owner;
    /** Completes when the latest enqueued operation's effect is done. Main thread. */
    private CompletableFuture<Void> tail = CompletableFuture.completedFuture(null);

    LeadershipChain(MainThreadExecutor mainThread, String owner) {
        this.mainThread = mainThread;
        this.owner = owner;
    }

    /**
     * Runs {@code operation} after every operation enqueued before it has completed. Its future
     * says when its effect is done; a failed one is logged and does not stop the chain.
     */
    void enqueue(String what, Supplier<CompletableFuture<Void>> operation) {
        mainThread.assertRunningInMainThread();
        CompletableFuture<Void> previous = tail;
        if (previous.isDone()) {
            tail = run(what, operation);
            return;
        }
        LOG.info("{}: {} waits for the previous leadership operation to finish", owner, what);
        tail = previous.handleAsync((ignored, error) -> run(what, operation), mainThread).thenCompose(f -> f);
    }

    /** Whether an operation is still in progress (a new one would wait). Main thread. */
    boolean busy() {
        return !tail.isDone();
    }

    private CompletableFuture<Void> run(String what, Supplier<CompletableFuture<Void>> operation) {
        try {
            return operation.get().exceptionally(error -> {
                LOG.error("{}: {} failed", owner, what, error);
                return null;
            });
        } catch (RuntimeException e) {
            LOG.error("{}: {} failed", owner, what, e);
            return CompletableFuture.completedFuture(null);
        }
    }
}
