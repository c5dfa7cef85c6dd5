package io.sluice.rest.routes;

import io.sluice.rest.RestException;
import io.sluice.rest.model.JobListView;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Where a page of {@code GET /v1/jobs} starts: just after the job with this start time and id in
 * {@link JobListView#ORDER}. A position in the order rather than an offset, so that a job submitted
 * (it sorts first) or ended and dropped while a client pages does not shift the later pages: every job
 * listed before the walk began and still listed at its end is seen exactly once. Clients treat the
 * text as opaque ({@code <startTimeMillis>_<jobId>} today). Immutable.
 *
 * @param startTimeMillis the start time of the last job of the previous page (-1 when unknown)
 * @param jobId           its id, 32 lowercase hex digits
 */
public record JobPageToken(long startTimeMillis, String jobId) {
    private static final Pattern FORM = Pattern.compile("(-1|0|[1-9][0-9]{0,17})_([0-9a-f]{32})");

    /** The position just after {@code last}. */
    public static JobPageToken after(JobListView.Item last) {
        return new JobPageToken(last.startTimeMillis(), last.id());
    }

    /** {@code raw} as a token, or a 400 that says where tokens come from. */
    public static JobPageToken parse(String raw) {
        Matcher m = FORM.matcher(raw);
        if (!m.matches()) {
            throw RestException.badRequest("?pageToken= takes the nextPageToken of an earlier answer of GET /v1/jobs, not '"
                    + JobRoutes.printable(raw) + "'; leave it out for the first page");
        }
        return new JobPageToken(Long.parseLong(m.group(1)), m.group(2));
    }

    /** Whether {@code item} comes after this position in {@link JobListView#ORDER} (so belongs to the page it starts). */
    public boolean precedes(JobListView.Item item) {
        return item.startTimeMillis() < startTimeMillis
                || item.startTimeMillis() == startTimeMillis && item.id().compareTo(jobId) > 0;
    }

    @Override
    public String toString() {
        return startTimeMillis + "_" + jobId;
    }
}
