package io.sluice.jobmaster.lifecycle;

import io.sluice.job.JobStatus;

/**
 * One state of a job's lifecycle under its job master. Each state is a class of its own with a
 * narrow {@code Context}: the transitions it may make and the actions on the job it may use,
 * nothing else. Events reach the current state only ({@link JobLifecycle}); a state reacts to an
 * event or ignores it (the defaults here).
 *
 * <p>A transition ({@link JobLifecycle}'s one guarded method) leaves the old state ({@link
 * #onLeave()}, inside the transition: it must not start another one), records the status, and
 * then enters the new state ({@link #onEnter()}, after the transition: it may start the next one,
 * as a state that has nothing to wait for does).
 *
 * <p>Threading: the job master's main thread only.
 */
sealed interface JobState
        permits Created, WaitingForResources, Running, Restarting, FallingBack, Failing, Cancelling, Suspended, Ended {

    /** The job status this state shows. */
    JobStatus status();

    /** The transition to this state is complete: do what entering it means. */
    default void onEnter() {
    }

    /** This state is being left, inside the transition: release what it holds (timers). Must not transition. */
    default void onLeave() {
    }

    /** The job master starts. */
    default void start() {
    }

    /** The job is cancelled. */
    void cancel();

    /** Leadership of the job is lost. */
    void suspend(String reason);

    /** A task of the current round failed (its own report, or lost with its task executor, or cancelled unasked). */
    default void onTaskFailed(TaskFailure failure) {
        onTaskEnded();
    }

    /** A task of the current round finished. */
    default void onTaskFinished() {
        onTaskEnded();
    }

    /** A task of the current round ended (failed, finished, or cancelled as asked). */
    default void onTaskEnded() {
    }

    /** The job failed as a whole, not through a task's report (too many checkpoint failures). */
    default void onGlobalFailure(Throwable cause) {
    }

    /** The dynamic slot pool got new slots. */
    default void onSlotsAdded() {
    }

    /** The state's name in logs and messages: its class's. */
    default String name() {
        return getClass().getSimpleName();
    }
}
