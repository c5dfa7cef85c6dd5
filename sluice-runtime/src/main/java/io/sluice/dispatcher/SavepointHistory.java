package io.sluice.dispatcher;

import io.sluice.checkpoint.Savepoint;
import io.sluice.graph.JobId;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The savepoints this job manager knows, per job, oldest first (by checkpoint id): what {@code GET
 * /v1/jobs/{id}/savepoints} and {@code sluice savepoints <job>} list. Those it took, and those read
 * from the HA services' {@link io.sluice.ha.SavepointStore} when it gained the dispatcher leadership
 * ({@link DurableSavepoints} keeps the two in step). Kept after the job ended (a stop with a
 * savepoint is followed by a run from it), at most {@link #PER_JOB} per job (the lowest checkpoint ids
 * go first, in the store too) and {@link #JOBS} jobs in memory (the job added longest ago goes first;
 * {@link #evictedAny()} then says that a job missing here may still have entries in the store).
 *
 * <p>Threading: the Dispatcher's main thread only (checked by the Dispatcher, which owns it).
 */
final class SavepointHistory {
    static final int PER_JOB = 100;
    static final int JOBS = 1000;

    /** Per job, by checkpoint id; in the order the jobs were first added. */
    private final Map<JobId, TreeMap<Long, Savepoint>> byJob = new LinkedHashMap<>();
    private boolean evicted;

    /** Adds (or replaces, by checkpoint id) one savepoint. */
    void add(Savepoint savepoint) {
        TreeMap<Long, Savepoint> list = byJob.get(savepoint.jobId());
        if (list == null) {
            list = new TreeMap<>();
            byJob.put(savepoint.jobId(), list);
            if (byJob.size() > JOBS) {
                Iterator<JobId> eldest = byJob.keySet().iterator();
                eldest.next();
                eldest.remove();
                evicted = true;
            }
        }
        list.put(savepoint.checkpointId(), savepoint);
        while (list.size() > PER_JOB) {
            list.pollFirstEntry();
        }
    }

    /** Adds each of {@code savepoints} (read back from the store), keeping the ones known already. */
    void addAll(List<Savepoint> savepoints) {
        savepoints.forEach(this::add);
    }

    /** The job's savepoints, oldest first; empty if none. */
    List<Savepoint> of(JobId jobId) {
        TreeMap<Long, Savepoint> list = byJob.get(jobId);
        return list == null ? List.of() : new ArrayList<>(list.values());
    }

    /** Whether a job's savepoints were ever dropped here to stay within {@link #JOBS}. */
    boolean evictedAny() {
        return evicted;
    }
}
