package io.sluice.protocol;

import io.sluice.job.JobStatus;

/** One status change, with the wall-clock time it happened. */
public record JobStatusTransition(JobStatus status, long timestampMillis) implements java.io.Serializable {
}
