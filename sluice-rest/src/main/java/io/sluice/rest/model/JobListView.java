package io.sluice.rest.model;

import io.sluice.protocol.JobSummary;
import java.util.Comparator;
import java.util.List;

/** {@code GET /v1/jobs}: every known job, newest first. */
public record JobListView(List<Item> jobs) {
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
        static Item of(JobSummary s) {
            return new Item(s.jobId().value(), s.name(), s.status().name(), s.startTimeMillis(), s.lastTransitionMillis(),
                    JobHealthView.CrashLoopView.of(s.health().crashLoop()),
                    JobHealthView.StaleCheckpointsView.of(s.health()));
        }
    }

    public static JobListView of(List<JobSummary> jobs) {
        return new JobListView(jobs.stream()
                .map(Item::of)
                .sorted(Comparator.comparingLong(Item::startTimeMillis).reversed().thenComparing(Item::id))
                .toList());
    }
}
