package io.sluice.dispatcher;

import io.sluice.checkpoint.CheckpointStorage;
import io.sluice.checkpoint.CheckpointStorageRegistry;
import io.sluice.graph.JobId;
import io.sluice.ha.HighAvailabilityServices;
import io.sluice.ha.LeaderElection;
import io.sluice.job.JobResult;
import io.sluice.rpc.MainThreads;
import java.util.List;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.UUID;

/**
 * Removes what an ended job (one with a durable result) left behind: its job graph and jar in the HA
 * services, and, when asked, its retained checkpoints — HA pointers and id counter first (a pointer to
 * deleted files would fail a later {@code latest:<jobId>}), then every file under
 * {@code <location>/<jobId>/}, each retained checkpoint also by name (its id from the HA pointers or a
 * listing) — and finally records in the job's result that nothing is left. Once nothing is left and the job
 * is to be forgotten ({@code jobmanager.ended-jobs.retention}), {@link #forget} removes that result.
 * Each HA write runs inside the dispatcher leadership's {@link LeaderElection#runIfLeader}, so a
 * deposed leader writes nothing. Every step is idempotent: a clean-up interrupted by a crash or a
 * storage error is simply run again.
 *
 * <p>Threading: stateless and thread-safe; {@link #clean} blocks on the HA services and checkpoint
 * storage and runs on an I/O executor only (checked).
 */
final class EndedJobCleanup {
    private final HighAvailabilityServices ha;
    private final CheckpointStorageRegistry storages;

    EndedJobCleanup(HighAvailabilityServices ha, CheckpointStorageRegistry storages) {
        this.ha = ha;
        this.storages = storages;
    }

    /**
     * What one clean-up did.
     *
     * @param result             the job's result as it is stored now
     * @param deletion           the checkpoints deleted, or {@code null} when they were not to be deleted
     * @param graphRemoved       whether a job graph left behind was removed
     */
    record Outcome(JobResult result, io.sluice.protocol.CheckpointsDeletion deletion, boolean graphRemoved) {
    }

    /**
     * @param graphStored       the job's graph is still stored (the job manager stopped between the result write
     *                          and the graph's removal): it and the job's jar are removed
     * @param deleteCheckpoints delete the job's checkpoints (they expired, were requested, or were to be deleted
     *                          when the job ended)
     */
    Outcome clean(JobResult result, boolean graphStored, boolean deleteCheckpoints, LeaderElection election,
                  UUID session) throws Exception {
        JobId id = result.jobId();
        MainThreads.checkNotMainThread("cleaning up after the ended job " + id);
        if (graphStored) {
            // The jar first: a jar without its graph is never found again, a graph always is (it is listed).
            election.runIfLeader(session, () -> ha.jobJarStore().removeJobJar(id));
            election.runIfLeader(session, () -> ha.jobGraphStore().removeJobGraph(id));
        }
        if (!deleteCheckpoints) {
            return new Outcome(result, null, graphStored);
        }
        String location = result.checkpointsLocation();
        // The retained checkpoints as the HA pointers name them, read before the pointers go. A listing of the
        // storage alone can miss them: S3Proxy's in-memory store was seen listing none of a job's three retained
        // checkpoints while the job's last discards ran beside it, and a store with eventually consistent
        // listings may do the same. Then the user was told "deleted nothing" while checkpoints existed.
        SortedSet<Long> retained = location == null ? new TreeSet<>() : retainedIds(id);
        election.runIfLeader(session, () -> ha.checkpointRecoveryFactory().removeCheckpointsOfEndedJob(id));
        List<Long> deleted = List.of();
        if (location != null) {
            CheckpointStorage storage = storages.forLocation(location);
            SortedSet<Long> ids = new TreeSet<>(retained);
            ids.addAll(storage.listCheckpointIds(id));
            for (long checkpointId : ids) {
                storage.discard(id, checkpointId); // by name too, so that a listing that misses them leaves nothing
            }
            storage.discardJob(id);
            deleted = List.copyOf(ids);
        }
        JobResult updated = result.withCheckpointsDeleted();
        if (!updated.equals(result)) {
            election.runIfLeader(session, () -> ha.jobResultStore().putResult(updated));
        }
        return new Outcome(updated, new io.sluice.protocol.CheckpointsDeletion(id, location, deleted), graphStored);
    }

    /**
     * Forgets the ended job {@code result} in the HA services: its jar and graph (already gone unless a clean-up
     * was interrupted), then its result, in that order, so that a graph is never left without the result that
     * keeps it from running again. Only for a job with nothing left in storage ({@link JobResult#mayHaveCheckpoints()}
     * false). Idempotent.
     */
    void forget(JobResult result, LeaderElection election, UUID session) throws Exception {
        JobId id = result.jobId();
        MainThreads.checkNotMainThread("forgetting the ended job " + id);
        if (result.mayHaveCheckpoints()) {
            throw new IllegalStateException("Job " + id + " may still have checkpoints in " + result.checkpointsLocation()
                    + "; it is forgotten only once they are deleted");
        }
        election.runIfLeader(session, () -> ha.jobJarStore().removeJobJar(id));
        election.runIfLeader(session, () -> ha.jobGraphStore().removeJobGraph(id));
        election.runIfLeader(session, () -> ha.jobResultStore().removeResult(id));
    }

    /** Ids of the checkpoints the HA services retain for the job (their pointers' metadata paths). */
    private SortedSet<Long> retainedIds(JobId id) throws Exception {
        SortedSet<Long> ids = new TreeSet<>();
        for (String path : ha.checkpointRecoveryFactory().retainedCheckpointPaths(id)) {
            CheckpointStorage.checkpointIdOf(path).ifPresent(ids::add);
        }
        return ids;
    }
}
