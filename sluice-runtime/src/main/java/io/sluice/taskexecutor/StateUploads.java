package io.sluice.taskexecutor;

import java.util.List;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The asynchronous parts of a task's checkpoints that are still running on the I/O executor. A
 * task that finishes waits for them ({@link #awaitAll}), so their acknowledgements reach the job
 * master before its {@code FINISHED}; a cancelled task interrupts them ({@link #cancelAll}) rather
 * than leave I/O threads waiting on storage. Thread-safe: submitted from the task thread, removed
 * by the I/O threads, cancelled from the task executor's main thread.
 */
final class StateUploads {
    private static final Logger LOG = LoggerFactory.getLogger(StateUploads.class);

    private final String taskName;
    private final ExecutorService ioExecutor;
    private final Set<Future<?>> running = ConcurrentHashMap.newKeySet();
    private volatile boolean cancelled;

    StateUploads(String taskName, ExecutorService ioExecutor) {
        this.taskName = taskName;
        this.ioExecutor = ioExecutor;
    }

    /** Runs {@code upload} on the I/O executor; at once cancelled if the task was cancelled. */
    void submit(Runnable upload) {
        CompletableFuture<Future<?>> self = new CompletableFuture<>();
        Future<?> future = ioExecutor.submit(() -> {
            try {
                upload.run();
            } finally {
                self.thenAccept(running::remove);
            }
        });
        running.add(future);
        self.complete(future);
        if (cancelled) {
            future.cancel(true);
        }
    }

    /** Interrupts every upload running and cancels those not started. Any thread. */
    void cancelAll() {
        cancelled = true;
        for (Future<?> upload : running) {
            upload.cancel(true);
        }
    }

    /**
     * Waits until every upload acknowledged or declined (each ends on its own or with a storage
     * timeout; a cancel interrupts it). Task thread.
     */
    void awaitAll() throws InterruptedException {
        for (Future<?> upload : List.copyOf(running)) {
            try {
                upload.get();
            } catch (ExecutionException | CancellationException e) {
                LOG.debug("A state upload of {} ended abnormally", taskName, e);
            }
        }
    }

    /** Uploads not yet ended (for tests). */
    int inFlight() {
        return running.size();
    }
}
