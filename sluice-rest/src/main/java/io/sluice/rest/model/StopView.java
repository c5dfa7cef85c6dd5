package io.sluice.rest.model;

/**
 * {@code POST /v1/jobs/{jobId}/stop}: the savepoint taken, and the job's status right after the cancel that
 * followed it was accepted (it ends CANCELED).
 */
public record StopView(String jobId, String status, SavepointView savepoint) {
}
