package io.sluice.rest.model;

import io.sluice.protocol.FailureEvent;
import io.sluice.protocol.JobDetails;
import io.sluice.job.JobStatus;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code GET /v1/jobs/{jobId}/exceptions}: the job's recent failures, newest first: the task failures
 * under its current job master (each restart's cause and the final one), and a failure that ended
 * the job without a job master (a recovery that could not succeed, too few slots).
 */
public record ExceptionsView(List<Entry> exceptions) {
    public ExceptionsView {
        exceptions = List.copyOf(exceptions);
    }

    /** @param restarted whether the job restarted after this failure */
    public record Entry(long timestampMillis, String message, boolean restarted) {
    }

    public static ExceptionsView of(JobDetails d) {
        List<Entry> out = new ArrayList<>();
        List<FailureEvent> failures = d.recentFailures();
        for (int i = failures.size() - 1; i >= 0; i--) {
            FailureEvent f = failures.get(i);
            out.add(new Entry(f.timestampMillis(), f.cause(), f.restarted()));
        }
        boolean listed = failures.stream().anyMatch(f -> f.cause().equals(d.failureMessage()));
        if (d.failureMessage() != null && !listed) {
            long at = Math.max(d.transitionTime(JobStatus.FAILED), d.transitionTime(JobStatus.FAILING));
            out.add(0, new Entry(at, d.failureMessage(), false));
        }
        return new ExceptionsView(out);
    }
}
