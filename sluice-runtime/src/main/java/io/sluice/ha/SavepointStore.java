package io.sluice.ha;

import io.sluice.checkpoint.Savepoint;
import io.sluice.graph.JobId;
import java.util.List;
import java.util.Map;

/**
 * The list of the savepoints taken of each job, kept in the HA services so that a job manager that
 * takes over after a failover, or a restarted cluster, lists the savepoints taken before: one small
 * entry per completed savepoint (the {@link Savepoint} record, in {@link SavepointEntry}'s format),
 * named by the job and the savepoint's checkpoint id. The savepoint's files are not here: they stay
 * in its own directory, and Sluice never deletes them.
 *
 * <p>Entries are kept as long as the job's result: they are not removed when the job ends nor when
 * its retained checkpoints are deleted (by {@code checkpoints.ended-job-retention} or {@code sluice
 * checkpoints delete}), since the savepoints themselves stay and restore; only the newest {@code
 * retain} per job are kept.
 *
 * <p>Threading: blocking, I/O executor only (implementations check it where they can), thread-safe.
 * {@link #addSavepoint} is idempotent.
 */
public interface SavepointStore {
    /**
     * Stores the entry of {@code savepoint} (overwriting the same job's entry of the same checkpoint id), then
     * removes the job's oldest entries (lowest checkpoint ids) beyond the newest {@code retain}.
     */
    void addSavepoint(Savepoint savepoint, int retain) throws Exception;

    /**
     * Every stored entry: what a job manager reads once when it gains the dispatcher leadership. An entry that
     * cannot be read is left out and named in {@link Stored#unreadable()}; it does not fail the call.
     */
    Stored savepoints() throws Exception;

    /** The job's stored entries; unreadable ones as in {@link #savepoints()}. */
    Stored savepoints(JobId jobId) throws Exception;

    /**
     * What a read found.
     *
     * @param byJob      each job's savepoints, oldest (lowest checkpoint id) first
     * @param unreadable one line per entry left out: where it is and why it could not be read
     */
    record Stored(Map<JobId, List<Savepoint>> byJob, List<String> unreadable) {
        public Stored {
            byJob = Map.copyOf(byJob);
            unreadable = List.copyOf(unreadable);
        }
    }

    /** Keeps nothing: HA services that do not keep savepoint entries (job managers list only what they took). */
    SavepointStore NONE = new SavepointStore() {
        @Override
        public void addSavepoint(Savepoint savepoint, int retain) {
        }

        @Override
        public Stored savepoints() {
            return new Stored(Map.of(), List.of());
        }

        @Override
        public Stored savepoints(JobId jobId) {
            return new Stored(Map.of(), List.of());
        }
    };
}
