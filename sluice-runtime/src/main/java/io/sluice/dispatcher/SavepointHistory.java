package io.sluice.dispatcher;

import io.sluice.checkpoint.Savepoint;
import io.sluice.graph.JobId;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The savepoints this job manager took, per job, newest last: what {@code GET /v1/jobs/{id}/savepoints} and
 * {@code sluice savepoints <job>} list. Kept after the job ended (a stop with a savepoint is followed by a run
 * from it), at most {@link #PER_JOB} per job and {@link #JOBS} jobs (the oldest job's go first).
 *
 * <p>In memory only: a job manager that takes over after a failover lists none of the savepoints taken before
 * (their directories are untouched and restore as ever).
 *
 * <p>Threading: the Dispatcher's main thread only (checked by the Dispatcher, which owns it).
 */
final class SavepointHistory {
    static final int PER_JOB = 100;
    static final int JOBS = 1000;

    private final Map<JobId, Deque<Savepoint>> byJob = new HashMap<>();
    private final Deque<JobId> jobOrder = new ArrayDeque<>();

    void add(Savepoint savepoint) {
        Deque<Savepoint> list = byJob.get(savepoint.jobId());
        if (list == null) {
            list = new ArrayDeque<>();
            byJob.put(savepoint.jobId(), list);
            jobOrder.addLast(savepoint.jobId());
            if (jobOrder.size() > JOBS) {
                byJob.remove(jobOrder.removeFirst());
            }
        }
        list.addLast(savepoint);
        if (list.size() > PER_JOB) {
            list.removeFirst();
        }
    }

    /** The job's savepoints, oldest first; empty if none. */
    List<Savepoint> of(JobId jobId) {
        Deque<Savepoint> list = byJob.get(jobId);
        return list == null ? List.of() : new ArrayList<>(list);
    }
}
