package io.sluice.rest.model;

/** {@code POST /v1/jobs/{jobId}/cancel}: the cancel was accepted; {@code status} is the job's status right after. */
public record CancelView(String id, String status) {
}
