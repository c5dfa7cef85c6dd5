package io.sluice.taskexecutor;

import io.sluice.concurrent.Futures;
import io.sluice.graph.JobId;
import io.sluice.jar.ClassLoaderLease;
import io.sluice.jar.JobJarUnavailableException;
import io.sluice.jar.UserCodeClassLoaders;
import io.sluice.rpc.MainThreadExecutor;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Gets a task executor's tasks the class loaders of their jobs: from memory when this process has
 * the job's loader already (a job manager in the same process, or another task of the job here);
 * otherwise the jar is fetched from the HA job jar store (its digest checked by the store) and
 * loaded on the I/O executor, once for all tasks of the job that arrive meanwhile. A job without a
 * jar, or a task executor without user-code class loaders, gets the runtime's own loader. A jar that
 * cannot be fetched or fails its digest check fails the deployment with an error naming the job and
 * the task executor; other jobs are untouched.
 *
 * <p>Threads: the task executor's main thread (checked); the fetch runs on the I/O executor and its
 * result returns to the main thread.
 */
final class JobClassLoaderFetcher {
    private static final Logger LOG = LoggerFactory.getLogger(JobClassLoaderFetcher.class);

    private final String taskExecutorId;
    /** {@code null}: every task uses the runtime's own class loader. */
    private final UserCodeClassLoaders userCode;
    private final MainThreadExecutor mainThread;
    private final Executor ioExecutor;
    /** Jars being fetched, per job, with the submissions waiting for them. Main thread. */
    private final Map<JobId, List<CompletableFuture<ClassLoaderLease>>> loading = new HashMap<>();

    JobClassLoaderFetcher(String taskExecutorId, UserCodeClassLoaders userCode, MainThreadExecutor mainThread,
                          Executor ioExecutor) {
        this.taskExecutorId = taskExecutorId;
        this.userCode = userCode;
        this.mainThread = mainThread;
        this.ioExecutor = ioExecutor;
    }

    /** A lease on the class loader of {@code jobId}; completes on the main thread when it had to be fetched. Main thread. */
    CompletableFuture<ClassLoaderLease> classLoaderFor(JobId jobId) {
        mainThread.assertRunningInMainThread();
        if (userCode == null) {
            return CompletableFuture.completedFuture(ClassLoaderLease.unmanaged(TaskExecutor.class.getClassLoader()));
        }
        Optional<ClassLoaderLease> loaded = userCode.acquireIfLoaded(jobId);
        if (loaded.isPresent()) {
            return CompletableFuture.completedFuture(loaded.get());
        }
        CompletableFuture<ClassLoaderLease> waiter = new CompletableFuture<>();
        List<CompletableFuture<ClassLoaderLease>> waiters = loading.get(jobId);
        if (waiters != null) {
            waiters.add(waiter);
            return waiter;
        }
        List<CompletableFuture<ClassLoaderLease>> fresh = new ArrayList<>();
        fresh.add(waiter);
        loading.put(jobId, fresh);
        CompletableFuture.supplyAsync(() -> load(jobId), ioExecutor)
                .whenCompleteAsync((first, error) -> loaded(jobId, first, error), mainThread);
        return waiter;
    }

    /** Main thread: the fetch of {@code jobId}'s jar ended; every waiter gets its own lease, or the error. */
    private void loaded(JobId jobId, ClassLoaderLease first, Throwable error) {
        List<CompletableFuture<ClassLoaderLease>> all = loading.remove(jobId);
        for (CompletableFuture<ClassLoaderLease> w : all) {
            if (error != null) {
                w.completeExceptionally(Futures.unwrap(error));
            } else {
                // the first lease keeps the loader open while every waiter takes its own
                w.complete(userCode.acquireIfLoaded(jobId).orElseGet(userCode::defaultLease));
            }
        }
        if (first != null) {
            first.close();
        }
    }

    /** I/O executor: fetches and loads the jar of {@code jobId} (or the runtime's loader for a job without one). */
    private ClassLoaderLease load(JobId jobId) {
        try {
            return userCode.acquire(jobId);
        } catch (IOException | RuntimeException e) {
            LOG.warn("Task executor {} could not load the jar of job {}: {}", taskExecutorId, jobId, e.toString());
            throw new CompletionException(new JobJarUnavailableException("Task executor " + taskExecutorId
                    + " could not load the jar of job " + jobId + " (" + e.getMessage() + "); the deployment fails and"
                    + " the job restarts by its restart strategy. Check high-availability.storage-dir and that the jar"
                    + " there was not changed.", e));
        }
    }
}
