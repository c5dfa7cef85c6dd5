package io.sluice.jobmaster.lifecycle;

/**
 * A failure that may make the job fail over: a task's own FAILED report, or one that is not a
 * task's own (a lost task executor, a failed deployment RPC, a task cancelled without being asked,
 * too many checkpoint failures), which is known to be transient.
 *
 * @param cause          what went wrong
 * @param vertexName     the failed task's vertex, or {@code null} when not one task's failure
 * @param restoringFrom  the checkpoint the failed task was still restoring from, or -1
 * @param transientCause known to be transient (not the task's own failure)
 */
public record TaskFailure(Throwable cause, String vertexName, long restoringFrom, boolean transientCause) {

    /** A task's own FAILED report. */
    public static TaskFailure ofTask(Throwable cause, String vertexName, long restoringFrom) {
        return new TaskFailure(cause, vertexName, restoringFrom, false);
    }

    /** A failure that is not one task's own report: transient. */
    public static TaskFailure global(Throwable cause) {
        return new TaskFailure(cause, null, -1, true);
    }
}
