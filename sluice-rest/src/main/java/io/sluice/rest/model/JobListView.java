package io.sluice.rest.model;

import io.sluice.protocol.JobSummary;
import java.util.Comparator;
import java.util.List;

/**
 * {@code GET /v1/jobs}: one page of the jobs that match the request's filters, newest first.
 *
 * @param jobs          this page, in {@link #ORDER}
 * @param total         how many jobs match the filters, on all pages together
 * @param nextPageToken where the next page starts (pass it as {@code pageToken}), or {@code null} on the last page
 * @param next          the path and query of the next page (the same filters and limit), or {@code null} on the last page
 */
public record JobListView(List<Item> jobs, int total, String nextPageToken, String next) {
    /**
     * The order of the list: newest first (latest {@code startTimeMillis}; unknown, -1, last), then by
     * id. A total order that does not depend on a job's status, so that paging is stable while jobs
     * change status.
     */
    public static final Comparator<Item> ORDER =
            Comparator.comparingLong(Item::startTimeMillis).reversed().thenComparing(Item::id);

    public JobListView {
        jobs = List.copyOf(jobs);
    }

    /**
     * @param name                 {@code null} while the job's graph is still being read
     * @param startTimeMillis      when this job manager first knew the job, -1 if unknown
     * @param lastTransitionMillis the latest status change, -1 if unknown
     * @param crashLoop            the crash loop the job is in, or {@code null}
     * @param checkpointsStale     the latest checkpoint is older than {@code checkpoints.stale-after}, or {@code null}
     */
    public record Item(String id, String name, String status, long startTimeMillis, long lastTransitionMillis,
                       JobHealthView.CrashLoopView crashLoop, JobHealthView.StaleCheckpointsView checkpointsStale) {
        public static Item of(JobSummary s) {
            return new Item(s.jobId().value(), s.name(), s.status().name(), s.startTimeMillis(), s.lastTransitionMillis(),
                    JobHealthView.CrashLoopView.of(s.health().crashLoop()),
                    JobHealthView.StaleCheckpointsView.of(s.health()));
        }
    }

    /** The items of {@code jobs} in {@link #ORDER}. */
    public static List<Item> items(List<JobSummary> jobs) {
        return jobs.stream().map(Item::of).sorted(ORDER).toList();
    }
}
