package io.sluice.jobmaster.lifecycle;

import io.sluice.job.JobStatus;
import java.time.Duration;
import java.util.function.BiConsumer;
import java.util.function.Consumer;

/**
 * What the states of a job's lifecycle do to the job, supplied by its job master from its parts
 * (deployment rounds, slots, checkpointing, failover policy, restore fallback, result). Each state
 * reaches only the methods its own {@code Context} lists.
 *
 * <p>Threading: every method is called on the job master's main thread, and must not block.
 */
public interface JobActions {
    /** Listens to the dynamic slot pool for lost task executors and added slots; no-op without a pool. */
    void listenToSlotPool();

    /**
     * Takes the slots for the next deployment. False: too few in the dynamic pool; the job waits
     * in {@code waitingIn} (its status), and its details say for what.
     */
    boolean tryAllocateSlots(JobStatus waitingIn);

    /** Starts a new deployment round: every subtask to its slot, restoring from the latest completed checkpoint. */
    void deployAll();

    /** Asks every task of the current round that has not ended to cancel. */
    void cancelAllTasks();

    boolean allTasksEnded();

    boolean allTasksFinished();

    /** Every task of the current round has ended: its data channels are released. */
    void releaseDeployment();

    /** Starts periodic checkpoints; no-op while they run or when checkpointing is disabled. */
    void startCheckpointing();

    /** Stops checkpoints for good and aborts the pending one, not as a failure. */
    void stopCheckpointing(String reason);

    /** Records {@code failure} (restart strategy, crash loops, failure history); whether the job restarts or fails. */
    FailoverDecision failover(TaskFailure failure);

    /** How long after every task of the failed round ended the job deploys again. */
    Duration restartDelay();

    /** Whether the next deployment first falls back past an unusable checkpoint (or waits for repaired state). */
    boolean restoreFallbackInProgress();

    /**
     * Whether the checkpoint to restore from is settled after a fallback. If not, exactly one of the
     * callbacks follows later, on the main thread: {@code retryAfter} or {@code waitForRepairedState}.
     */
    boolean readyToDeploy(Consumer<Duration> retryAfter, BiConsumer<String, Duration> waitForRepairedState);

    /** No retained checkpoint has usable state: {@code message} is the job's failure while it waits. */
    void waitingForRepairedState(String message);

    /** The job is {@code terminal} under this job master and every task has ended: the result completes. */
    void finish(JobStatus terminal);
}
