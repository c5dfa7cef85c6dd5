package io.sluice.rest.model;

import io.sluice.jobmaster.JobDetails;
import io.sluice.jobmaster.JobStatus;
import java.util.ArrayList;
import java.util.List;

/** {@code GET /v1/jobs/{jobId}/exceptions}: the job's recent failures, newest first. */
public record ExceptionsView(List<Entry> exceptions) {
    public ExceptionsView {
        exceptions = List.copyOf(exceptions);
    }

    public record Entry(long timestampMillis, String message) {
    }

    public static ExceptionsView of(JobDetails d) {
        List<Entry> out = new ArrayList<>();
        if (d.failureMessage() != null) {
            long at = Math.max(d.transitionTime(JobStatus.FAILED), Math.max(d.transitionTime(JobStatus.RESTARTING),
                    d.transitionTime(JobStatus.FAILING)));
            out.add(new Entry(at, d.failureMessage()));
        }
        return new ExceptionsView(out);
    }
}
