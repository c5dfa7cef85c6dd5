package io.sluice.compare.sluice;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sluice.checkpoint.CheckpointStorage;
import io.sluice.checkpoint.CompletedCheckpoint;
import io.sluice.checkpoint.TaskStateHandle;
import io.sluice.config.Configuration;
import io.sluice.graph.JobId;
import io.sluice.ha.zookeeper.ZooKeeperCheckpointPointerStore;
import io.sluice.ha.zookeeper.ZooKeeperHaServices;
import io.sluice.storage.BlobNotFoundException;
import io.sluice.storage.BlobStores;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Checkpoints that ZooKeeper holds and the running job manager's memory lacks, as a previous leader
 * would have left them: complete copies of a retained checkpoint (state files and metadata, under
 * ids below the job's retained ones, which it never writes again) written straight to the checkpoint
 * directory, and their pointer znodes written by another ZooKeeper session, kept open while the
 * variant runs. Sluice's running job manager never lists the pointer store again, so it never
 * learns of them; its store removes only the ids it knows, and removes all pointers (these too)
 * when the job ends. The copy uses its own {@link CheckpointStorage} on the directory, so it
 * passes no injected fault and is not counted in the cluster's storage counters.
 *
 * <p>Threading: harness thread only (blocking I/O).
 */
final class ExtraCheckpoints implements AutoCloseable {
    private static final int COPY_ATTEMPTS = 5;

    private final ZooKeeperHaServices session;
    private final CheckpointStorage storage;
    private final JobId jobId;
    private final List<Long> ids;
    private final long copiedFrom;

    private ExtraCheckpoints(ZooKeeperHaServices session, CheckpointStorage storage, JobId jobId, List<Long> ids,
                             long copiedFrom) {
        this.session = session;
        this.storage = storage;
        this.jobId = jobId;
        this.ids = List.copyOf(ids);
        this.copiedFrom = copiedFrom;
    }

    /**
     * Writes {@code count} extra checkpoints of {@code jobId}, with ids {@code count} to
     * {@code 2 * count - 1} below its oldest retained one; the job must have completed at least
     * {@code 3 * count} checkpoints so that those ids are free and their old files discarded.
     */
    static ExtraCheckpoints pin(ZooKeeperSetup zk, String clusterId, JobId jobId, Path checkpointDir, int count)
            throws Exception {
        ZooKeeperHaServices session = zk.services(clusterId);
        try {
            ZooKeeperCheckpointPointerStore pointers = session.checkpointRecoveryFactory().pointerStore();
            CheckpointStorage storage = new CheckpointStorage(BlobStores.open(checkpointDir.toString(),
                    new Configuration()), new SimpleMeterRegistry());
            for (int attempt = 1; ; attempt++) {
                List<Long> retained = pointers.checkpointIds(jobId);
                if (retained.isEmpty()) {
                    throw new IllegalStateException("Job " + jobId + " has no checkpoint pointers in ZooKeeper yet");
                }
                long oldest = retained.get(0);
                long latest = retained.get(retained.size() - 1);
                long firstExtra = oldest - 2L * count;
                if (firstExtra < 1) {
                    throw new IllegalStateException("Job " + jobId + " retains checkpoints " + retained + ": no "
                            + count + " free ids below them; let it complete " + 3 * count + " checkpoints first");
                }
                try {
                    CompletedCheckpoint source = storage.readMetadata(pointers.readPointer(jobId, latest));
                    List<Long> written = new ArrayList<>();
                    for (long id = firstExtra; id < firstExtra + count; id++) {
                        String metadata = copy(storage, source, id);
                        pointers.writePointer(jobId, id, metadata);
                        written.add(id);
                    }
                    return new ExtraCheckpoints(session, storage, jobId, written, latest);
                } catch (BlobNotFoundException | NoSuchFileException e) {
                    // The source checkpoint was subsumed and discarded while copying: copy the new latest.
                    if (attempt >= COPY_ATTEMPTS) {
                        throw new IllegalStateException("Could not copy a retained checkpoint of job " + jobId
                                + " in " + COPY_ATTEMPTS + " attempts: each was discarded while being copied", e);
                    }
                }
            }
        } catch (Exception | Error e) {
            session.close();
            throw e;
        }
    }

    /** Writes checkpoint {@code id}: {@code source}'s state files and metadata, renumbered. Returns the metadata path. */
    private static String copy(CheckpointStorage storage, CompletedCheckpoint source, long id) {
        List<TaskStateHandle> handles = new ArrayList<>();
        for (TaskStateHandle h : source.taskStates()) {
            if (h.stateFile() == null) {
                handles.add(h);
                continue;
            }
            byte[] data = storage.readTaskState(h.stateFile());
            String path = storage.writeTaskState(source.jobId(), id, h.vertexId(), h.subtaskIndex(), data);
            handles.add(new TaskStateHandle(h.vertexId(), h.subtaskIndex(), path, data.length, h.sourcePosition(),
                    h.keyGroupRange()));
        }
        return storage.writeMetadata(new CompletedCheckpoint(source.jobId(), id, source.triggerTimestampMillis(),
                source.completionTimestampMillis(), handles, null));
    }

    /** Whether every copy's metadata is still in the checkpoint directory. */
    boolean allPresent() {
        for (long id : ids) {
            try {
                storage.readMetadata(storage.metadataPath(jobId, id));
            } catch (RuntimeException e) {
                return false;
            }
        }
        return true;
    }

    /** One sentence for the result file's header. */
    String describe() {
        return String.format(Locale.ROOT, "%d extra complete checkpoints (ids %d-%d, copies of checkpoint %d) were"
                        + " added to the job's pointer znodes by another ZooKeeper session while the job ran, so"
                        + " ZooKeeper held checkpoints the job manager's memory lacks.", ids.size(), ids.get(0),
                ids.get(ids.size() - 1), copiedFrom);
    }

    /** Closes the other ZooKeeper session; the pointers stay until the job ends. */
    @Override
    public void close() {
        session.close();
    }
}
