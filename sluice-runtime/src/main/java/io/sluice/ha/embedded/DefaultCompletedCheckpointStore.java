package io.sluice.ha.embedded;

import io.sluice.checkpoint.CheckpointPointerInDoubtException;
import io.sluice.checkpoint.CheckpointStorage;
import io.sluice.checkpoint.CheckpointStoreShutDownException;
import io.sluice.checkpoint.CompletedCheckpoint;
import io.sluice.checkpoint.CompletedCheckpointStore;
import io.sluice.graph.JobId;
import io.sluice.ha.CheckpointPointerStore;
import io.sluice.ha.CheckpointRecoveryException;
import io.sluice.ha.LeaderElection;
import io.sluice.ha.RecoveryListener;
import io.sluice.checkpoint.CorruptCheckpointException;
import io.sluice.rpc.MainThreads;
import io.sluice.storage.BlobNotFoundException;
import java.nio.file.NoSuchFileException;
import io.sluice.job.JobStatus;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link CompletedCheckpointStore} whose retained checkpoints are recorded as pointers in a
 * {@link CheckpointPointerStore} (files in embedded mode, znodes on ZooKeeper), written only under the leader session it was created for.
 *
 * <p>In memory it holds the latest completed checkpoint in full, and only the ids of the other
 * retained ones: their metadata is never read at recovery, and only by {@link #loadRetained} on
 * demand. After a recovery that fell back past unusable newer checkpoints, those keep their
 * pointers and stay among {@link #retainedIds()} (so that retention eventually discards them),
 * while {@link #latest()} is the newest usable one.
 *
 * <p>Threading: {@link #latest()}, {@link #retainedIds()} and {@link #size()} read one immutable
 * snapshot from a volatile field: thread-safe, non-blocking, fine on main threads.
 * {@link #addCheckpoint}, {@link #fallBackFrom}, {@link #shutdown} and {@link #loadRetained} block on
 * I/O and run on an I/O executor ({@code addCheckpoint}, {@code fallBackFrom} and {@code shutdown}
 * exclude each other; after {@code shutdown} every {@code addCheckpoint} is refused with
 * {@link CheckpointStoreShutDownException}); every pointer write or removal runs inside
 * {@link LeaderElection#runIfLeader}, so none lands after leadership was revoked.
 */
public final class DefaultCompletedCheckpointStore implements CompletedCheckpointStore {
    private static final Logger LOG = LoggerFactory.getLogger(DefaultCompletedCheckpointStore.class);

    private final JobId jobId;
    private final int maxRetained;
    private final CheckpointPointerStore pointers;
    private final CheckpointStorage storage;
    private final LeaderElection election;
    private final UUID leaderSessionId;
    private volatile Snapshot snapshot;
    /** How the store was shut down, or {@code null} while it is open; guarded by {@code this}. */
    private JobStatus shutDownAs;
    /**
     * After a discarding shutdown that could not delete everything: the checkpoints still to delete
     * (and whether the job's directory still is), retried by the next discarding shutdown; guarded by
     * {@code this}. {@code null} before any discarding shutdown.
     */
    private java.util.SortedSet<Long> leftToDiscard;

    /**
     * @param latest      the newest usable retained checkpoint, or {@code null} if there is none
     * @param retainedIds ids of all pointers the job has, including {@code latest}'s
     */
    public DefaultCompletedCheckpointStore(JobId jobId, int maxRetained, CheckpointPointerStore pointers,
                                           CheckpointStorage storage, LeaderElection election, UUID leaderSessionId,
                                           CompletedCheckpoint latest, List<Long> retainedIds) {
        if (maxRetained < 1) {
            throw new IllegalArgumentException("maxRetained must be >= 1, got " + maxRetained);
        }
        if (latest != null && !retainedIds.contains(latest.checkpointId())) {
            throw new IllegalArgumentException("The latest checkpoint " + latest.checkpointId() + " of job " + jobId
                    + " must be among the retained ids " + retainedIds);
        }
        this.jobId = jobId;
        this.maxRetained = maxRetained;
        this.pointers = pointers;
        this.storage = storage;
        this.election = election;
        this.leaderSessionId = leaderSessionId;
        List<Long> ids = new ArrayList<>(retainedIds);
        ids.sort(null);
        this.snapshot = new Snapshot(latest, List.copyOf(ids), java.util.Set.of());
    }

    @Override
    public synchronized List<Long> addCheckpoint(CompletedCheckpoint checkpoint) throws Exception {
        long id = checkpoint.checkpointId();
        if (!checkpoint.jobId().equals(jobId)) {
            throw new IllegalArgumentException("Checkpoint " + id + " belongs to job " + checkpoint.jobId()
                    + ", not to job " + jobId + " whose store it was added to");
        }
        if (checkpoint.metadataPath() == null) {
            throw new IllegalArgumentException("Checkpoint " + id + " of job " + jobId + " has no metadata path;"
                    + " write its metadata to checkpoint storage before adding it");
        }
        if (shutDownAs != null) {
            // The job ended while this checkpoint was finalized: a pointer now would outlive the cleanup.
            throw new CheckpointStoreShutDownException(jobId, id, shutDownAs.name());
        }
        Snapshot before = snapshot;
        if (!before.ids().isEmpty() && id <= before.ids().get(before.ids().size() - 1)) {
            throw new IllegalArgumentException("Checkpoint " + id + " of job " + jobId + " is not newer than the"
                    + " retained checkpoints " + before.ids() + "; checkpoint ids must increase");
        }
        List<Long> ids = new ArrayList<>(before.ids());
        ids.add(id);
        try {
            writePointer(id, checkpoint.metadataPath());
        } catch (CheckpointPointerInDoubtException e) {
            // Retained, though not the latest: retention later removes its pointer (if it landed) before
            // its files, and a discarding shutdown deletes both, so neither is left behind for ever.
            snapshot = new Snapshot(before.latest(), List.copyOf(ids), before.unusable());
            throw e;
        }
        snapshot = new Snapshot(checkpoint, List.copyOf(ids), before.unusable());

        List<Long> subsumed = new ArrayList<>();
        while (ids.size() > maxRetained) {
            long oldest = ids.get(0);
            try {
                election.runIfLeader(leaderSessionId, () -> pointers.removePointer(jobId, oldest));
            } catch (Exception e) {
                // The checkpoint is added; its pointer is kept, so its files must be kept too. Retried at the next add.
                LOG.warn("Could not remove the pointer of subsumed checkpoint {} of job {}; keeping its files: {}",
                        oldest, jobId, e.toString());
                break;
            }
            ids.remove(0);
            subsumed.add(oldest);
            snapshot = new Snapshot(checkpoint, List.copyOf(ids), before.unusable());
        }
        return subsumed;
    }

    /**
     * The fenced pointer write of {@link #addCheckpoint}. A refusal before the write started (this
     * session no longer leads) is rethrown as it is: nothing was written. Any failure once the write
     * started is in doubt ({@link CheckpointPointerInDoubtException}): a ZooKeeper transaction that was
     * sent before a revocation interrupted the writer, or before the connection dropped, may have been
     * applied, and the caller must then keep the checkpoint's files.
     */
    private void writePointer(long id, String metadataPath) throws Exception {
        boolean[] started = {false};
        try {
            election.runIfLeader(leaderSessionId, () -> {
                started[0] = true;
                pointers.writePointer(jobId, id, metadataPath);
            });
        } catch (Exception e) {
            if (!started[0]) {
                throw e;
            }
            throw new CheckpointPointerInDoubtException(jobId, id, metadataPath, e);
        }
    }

    @Override
    public Optional<CompletedCheckpoint> latest() {
        return Optional.ofNullable(snapshot.latest());
    }

    @Override
    public List<Long> retainedIds() {
        return snapshot.ids();
    }

    @Override
    public int size() {
        return snapshot.ids().size();
    }

    @Override
    public int maxRetained() {
        return maxRetained;
    }

    /**
     * Reads a retained checkpoint's pointer and metadata from storage. Blocking; for the rare case
     * that an older checkpoint than {@link #latest()} is needed.
     */
    public CompletedCheckpoint loadRetained(long checkpointId) throws Exception {
        Snapshot current = snapshot;
        if (current.latest() != null && current.latest().checkpointId() == checkpointId) {
            return current.latest();
        }
        if (!current.ids().contains(checkpointId)) {
            throw new IllegalArgumentException("Checkpoint " + checkpointId + " of job " + jobId
                    + " is not retained; retained are " + current.ids());
        }
        return storage.readMetadata(pointers.readPointer(jobId, checkpointId));
    }

    /**
     * Reads the metadata of the retained checkpoints older than {@code unusableId}, newest first,
     * skipping corrupt or missing ones (as {@link #recover} does), and makes the first usable one
     * the latest.
     */
    @Override
    public synchronized Optional<CompletedCheckpoint> fallBackFrom(long unusableId,
            java.util.function.Consumer<String> events) throws Exception {
        MainThreads.checkNotMainThread("checkpoint fallback of job " + jobId);
        Snapshot current = snapshot;
        if (current.latest() != null && current.latest().checkpointId() > unusableId) {
            // A newer checkpoint completed meanwhile (written by running tasks): restore from it.
            java.util.Set<Long> unusable = new java.util.HashSet<>(current.unusable());
            unusable.add(unusableId);
            snapshot = new Snapshot(current.latest(), current.ids(), java.util.Set.copyOf(unusable));
            return Optional.of(current.latest());
        }
        java.util.Set<Long> unusable = new java.util.HashSet<>(current.unusable());
        unusable.add(unusableId);
        return loadNewestUsable(current.ids(), unusableId, unusable, events);
    }

    /**
     * Forgets the checkpoints found unusable in this session and loads the newest retained one with
     * readable metadata again (after the job waited for repaired state files).
     */
    @Override
    public synchronized Optional<CompletedCheckpoint> retryUnusable(java.util.function.Consumer<String> events)
            throws Exception {
        MainThreads.checkNotMainThread("retrying the unusable checkpoints of job " + jobId);
        Snapshot current = snapshot;
        return loadNewestUsable(current.ids(), Long.MAX_VALUE, new java.util.HashSet<>(), events);
    }

    /** Newest first among {@code ids} below {@code belowId} and not {@code unusable}; makes it the latest. */
    private Optional<CompletedCheckpoint> loadNewestUsable(List<Long> ids, long belowId, java.util.Set<Long> unusable,
                                                           java.util.function.Consumer<String> events) throws Exception {
        for (int i = ids.size() - 1; i >= 0; i--) {
            long id = ids.get(i);
            if (id >= belowId || unusable.contains(id)) {
                continue;
            }
            String reason;
            try {
                CompletedCheckpoint cp = storage.readMetadata(pointers.readPointer(jobId, id));
                if (cp.checkpointId() == id && cp.jobId().equals(jobId)) {
                    snapshot = new Snapshot(cp, ids, java.util.Set.copyOf(unusable));
                    return Optional.of(cp);
                }
                reason = "its metadata is of checkpoint " + cp.checkpointId() + " of job " + cp.jobId();
            } catch (CorruptCheckpointException e) {
                reason = "corrupt (" + e.getMessage() + ")";
            } catch (BlobNotFoundException e) {
                reason = "missing";
            } catch (NoSuchFileException e) {
                reason = "pointer removed";
            }
            unusable.add(id);
            String event = "Checkpoint " + id + " of job " + jobId + " is unusable too (" + reason + ")";
            LOG.warn(event);
            events.accept(event);
        }
        snapshot = new Snapshot(null, ids, java.util.Set.copyOf(unusable));
        return Optional.empty();
    }

    /**
     * Excludes {@link #addCheckpoint} (both hold the store's lock), so a pointer write in flight
     * either lands before and is removed with the others, or is refused afterwards.
     *
     * <p>A discarding shutdown that cannot delete every file (storage down when the job ended)
     * throws {@link IncompleteCheckpointCleanupException} after removing what it could; calling it
     * again retries only what is left, so the caller retries with backoff until storage is back.
     */
    @Override
    public synchronized void shutdown(JobStatus status, boolean discardCheckpoints) throws Exception {
        shutDownAs = status;
        if (!discardCheckpoints) {
            LOG.info("Job {} is {}; keeping its checkpoints {} and their pointers{}", jobId, status, snapshot.ids(),
                    status == JobStatus.SUSPENDED ? " for the next leader" : " (it can be started again from them)");
            return;
        }
        if (leftToDiscard == null) {
            // Pointers first: a pointer to deleted files would make the next recovery fail.
            election.runIfLeader(leaderSessionId, () -> pointers.removeAll(jobId));
            leftToDiscard = new java.util.TreeSet<>(snapshot.ids());
            snapshot = new Snapshot(null, List.of(), java.util.Set.of());
        }
        RuntimeException firstError = null;
        for (java.util.Iterator<Long> it = leftToDiscard.iterator(); it.hasNext(); ) {
            long id = it.next();
            try {
                storage.discard(jobId, id);
                it.remove();
            } catch (RuntimeException e) {
                firstError = firstError == null ? e : firstError;
            }
        }
        try {
            storage.discardJob(jobId);
        } catch (RuntimeException e) {
            firstError = firstError == null ? e : firstError;
        }
        if (firstError != null) {
            throw new io.sluice.checkpoint.IncompleteCheckpointCleanupException(jobId, status, storage.location(),
                    List.copyOf(leftToDiscard), firstError);
        }
    }

    /**
     * Recovers a job's store from {@code pointers}: lists them once and reads the metadata of the
     * newest one only, so in the normal case it reads exactly one metadata file however many
     * checkpoints are retained. If that checkpoint is corrupt, its metadata missing or its pointer
     * removed meanwhile, it reports an event and tries the next older one; unusable checkpoints
     * are skipped, never deleted. Any other failure (storage unreachable, I/O error) propagates
     * for the caller to retry with backoff. If there are pointers but none is usable it fails with
     * {@link CheckpointRecoveryException}, or, when starting without a checkpoint is allowed,
     * reports an event and returns a store without a latest checkpoint.
     *
     * <p>Blocking, on an I/O thread. Checks for interruption between steps and throws
     * {@link InterruptedException}; an interrupted storage call also ends in {@link InterruptedException}.
     * Shared by the embedded and the ZooKeeper HA services.
     */
    public static DefaultCompletedCheckpointStore recover(CheckpointPointerStore pointers,
            JobId jobId, int maxRetained, CheckpointStorage storage, LeaderElection election, UUID leaderSessionId,
            boolean allowStartWithoutCheckpoint, RecoveryListener listener) throws Exception {
        MainThreads.checkNotMainThread("checkpoint recovery of job " + jobId);
        checkInterrupted(jobId);
        listener.phase("listing checkpoint pointers");
        List<Long> ids = pointers.checkpointIds(jobId);
        listener.pointersFound(ids.size());

        List<String> unusable = new ArrayList<>();
        CompletedCheckpoint latest = null;
        for (int i = ids.size() - 1; i >= 0 && latest == null; i--) {
            long id = ids.get(i);
            checkInterrupted(jobId);
            String reason;
            try {
                listener.phase("reading metadata of checkpoint " + id);
                CompletedCheckpoint cp = storage.readMetadata(pointers.readPointer(jobId, id));
                if (cp.checkpointId() == id && cp.jobId().equals(jobId)) {
                    latest = cp;
                    listener.metadataLoaded(id);
                    continue;
                }
                reason = "its metadata is of checkpoint " + cp.checkpointId() + " of job " + cp.jobId();
            } catch (CorruptCheckpointException e) {
                reason = "corrupt (" + e.getMessage() + ")";
            } catch (BlobNotFoundException e) {
                reason = "missing";
            } catch (NoSuchFileException e) {
                reason = "pointer removed";
            } catch (RuntimeException e) {
                checkInterrupted(jobId, e);
                throw e;
            }
            checkInterrupted(jobId);
            unusable.add("chk-" + id + ": " + reason);
            if (i > 0) {
                String event = "Checkpoint " + id + " of job " + jobId + " is unusable (" + reason
                        + "); falling back to checkpoint " + ids.get(i - 1);
                LOG.warn(event);
                listener.event(event);
            }
        }

        if (latest == null && !ids.isEmpty()) {
            String problem = "None of the " + ids.size() + " retained checkpoints of job " + jobId
                    + " could be read (" + String.join(", ", unusable) + ").";
            if (!allowStartWithoutCheckpoint) {
                throw new CheckpointRecoveryException(problem + " Sluice does not silently start from empty state:"
                        + " fix or restore the checkpoint files, or set allowStartWithoutCheckpoint to start empty.");
            }
            String event = problem + " Starting from empty state because allowStartWithoutCheckpoint is set; the"
                    + " unreadable checkpoints are kept until newer ones subsume them.";
            LOG.warn(event);
            listener.event(event);
        }
        return new DefaultCompletedCheckpointStore(jobId, maxRetained, pointers, storage, election, leaderSessionId,
                latest, ids);
    }

    /**
     * The metadata paths recorded by the job's pointers, newest first (for starting another job from
     * them). Blocking, on an I/O thread; reads every pointer, but no metadata.
     */
    public static List<String> retainedPaths(CheckpointPointerStore pointers, JobId jobId) throws Exception {
        MainThreads.checkNotMainThread("listing the retained checkpoints of job " + jobId);
        List<Long> ids = new ArrayList<>(pointers.checkpointIds(jobId));
        java.util.Collections.reverse(ids);
        List<String> paths = new ArrayList<>();
        for (long id : ids) {
            try {
                paths.add(pointers.readPointer(jobId, id));
            } catch (NoSuchFileException e) {
                // removed meanwhile
            }
        }
        return paths;
    }

    private static void checkInterrupted(JobId jobId) throws InterruptedException {
        if (Thread.interrupted()) {
            throw new InterruptedException("Checkpoint recovery of job " + jobId + " was cancelled");
        }
    }

    private static void checkInterrupted(JobId jobId, Exception cause) throws InterruptedException {
        if (Thread.interrupted()) {
            InterruptedException e = new InterruptedException("Checkpoint recovery of job " + jobId
                    + " was cancelled while reading checkpoint storage");
            e.initCause(cause);
            throw e;
        }
    }
    /** @param unusable ids a restore found unusable in this session; never the latest again */
    private record Snapshot(CompletedCheckpoint latest, List<Long> ids, java.util.Set<Long> unusable) {}
}
