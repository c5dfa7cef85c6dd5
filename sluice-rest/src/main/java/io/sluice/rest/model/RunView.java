package io.sluice.rest.model;

/**
 * {@code POST /v1/jars/{jarId}/run}: the job was submitted.
 *
 * @param acceptedBy the job manager that accepted it (the dispatcher leader's contender id when the
 *                   submission was acknowledged), or null where there is only one ({@code sluice cluster})
 * @param forwarded  whether the job manager that answered is a standby that forwarded the submission
 */
public record RunView(String jobId, String acceptedBy, boolean forwarded) {

    /** A job accepted by the only job manager there is. */
    public RunView(String jobId) {
        this(jobId, null, false);
    }
}
