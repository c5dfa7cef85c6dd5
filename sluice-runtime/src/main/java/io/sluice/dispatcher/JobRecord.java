package io.sluice.dispatcher;

import io.sluice.graph.JobId;
import io.sluice.job.JobResult;
import java.util.concurrent.CompletableFuture;

/**
 * Everything the Dispatcher knows about one job, in one place: its stage ({@link JobExecution}),
 * the result request waiting for it, and the closing of an earlier runner of the job that a new
 * runner must wait for.
 *
 * <p>Threading: the Dispatcher's main thread only.
 */
final class JobRecord {
    private final JobId id;
    /** Null: not known to run or have ended here. */
    private JobExecution execution;
    /** When the record entered its stage (a sequence number; orders the job list as before). */
    private long enteredAt;
    /** The result request of a job that has not ended here yet; completed when it does. Null if none. */
    private CompletableFuture<JobResult> resultWaiter;
    /**
     * The runner closed when the dispatcher leadership was lost, until its job master's tasks have ended
     * and it left its election: a new runner of the job starts only after that. Null if none.
     */
    private CompletableFuture<Void> previousRunnerClosed;

    JobRecord(JobId id) {
        this.id = id;
    }

    JobId id() {
        return id;
    }

    JobExecution execution() {
        return execution;
    }

    long enteredAt() {
        return enteredAt;
    }

    void enter(JobExecution next, long sequence) {
        this.execution = next;
        this.enteredAt = sequence;
    }

    /** Replaces the stage's value without moving the job in the list; through {@link JobTable#update} only. */
    void update(JobExecution same) {
        this.execution = same;
    }

    /** Whether the job runs, is being recovered, or is being submitted here. */
    boolean isActive() {
        return execution instanceof JobExecution.Running || execution instanceof JobExecution.ReadingGraph
                || execution instanceof JobExecution.Submitting;
    }

    /** The result request, created on first use. */
    CompletableFuture<JobResult> resultWaiter() {
        if (resultWaiter == null) {
            resultWaiter = new CompletableFuture<>();
        }
        return resultWaiter;
    }

    /** Completes and forgets the result request, if any. */
    void answerResult(JobResult result) {
        if (resultWaiter != null) {
            CompletableFuture<JobResult> w = resultWaiter;
            resultWaiter = null;
            w.complete(result);
        }
    }

    /** Fails and forgets the result request, if any. */
    void failResult(Throwable error) {
        if (resultWaiter != null) {
            CompletableFuture<JobResult> w = resultWaiter;
            resultWaiter = null;
            w.completeExceptionally(error);
        }
    }

    boolean hasResultWaiter() {
        return resultWaiter != null;
    }

    CompletableFuture<Void> previousRunnerClosed() {
        return previousRunnerClosed;
    }

    void previousRunnerClosed(CompletableFuture<Void> closing) {
        this.previousRunnerClosed = closing;
    }

    /** Whether nothing is left to remember (no stage, no waiter, no closing runner). */
    boolean isIdle() {
        return execution == null && resultWaiter == null && previousRunnerClosed == null;
    }
}
