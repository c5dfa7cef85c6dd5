package io.sluice.rest.model;

/** {@code POST /v1/jars/{jarId}/run}: the job was submitted. */
public record RunView(String jobId) {
}
