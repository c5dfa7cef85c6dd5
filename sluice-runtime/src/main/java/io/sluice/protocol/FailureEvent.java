package io.sluice.protocol;

/**
 * One failure of a job's tasks, as shown in job details.
 *
 * @param timestampMillis wall-clock time the job master handled it
 * @param cause           "ExceptionClass: message" of the root cause
 * @param restarted       whether the job restarted after it (else the restart strategy gave up and the job failed)
 */
public record FailureEvent(long timestampMillis, String cause, boolean restarted) implements java.io.Serializable {
}
