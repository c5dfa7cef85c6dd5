package io.sluice.jobmaster.runner;

import io.sluice.checkpoint.CheckpointStorage;
import io.sluice.checkpoint.CheckpointStorageRegistry;
import io.sluice.checkpoint.CompletedCheckpoint;
import io.sluice.checkpoint.CorruptCheckpointException;
import io.sluice.graph.JobId;
import io.sluice.ha.CheckpointRecoveryFactory;
import io.sluice.rpc.MainThreads;
import io.sluice.storage.BlobNotFoundException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Finds and reads the checkpoint a job starts from ({@code checkpoints.restore-from}):
 * <ul>
 *   <li>a path: {@code <checkpoints.dir>/<jobId>/chk-<n>} or its {@code _metadata} file (as a plain
 *       path or a {@code file://} / {@code s3://} URI), read from the job's own checkpoint storage; or
 *       any other directory holding a {@code _metadata} file, anywhere (a checkpoint directory copied or
 *       moved elsewhere, under any name): its metadata and state files are read from that location,
 *       because a checkpoint's state files are relative to its directory;</li>
 *   <li>{@code latest:<jobId>}: the newest readable checkpoint among those the HA services retain for
 *       that job (its pointers), or, when they hold none, among the {@code chk-<n>} directories of that
 *       job in the checkpoint storage. Corrupt or missing ones are skipped.</li>
 * </ul>
 * What cannot be used fails with {@link RestoreCheckpointException} naming the path (its message carries
 * the cause's text and no cause, so that the job result's failure message is this one); storage errors
 * (unreachable, I/O) propagate for the caller to retry.
 *
 * <p>Threading: blocking; on an I/O thread only (checked). Stateless apart from its collaborators.
 */
final class RestoreCheckpointResolver {
    static final String LATEST_PREFIX = "latest:";
    private static final Pattern CHECKPOINT_DIR = Pattern.compile("^(.*)/([0-9a-fA-F]{32})/chk-(\\d+)$");

    private final CheckpointStorage jobStorage;
    private final CheckpointStorageRegistry storages;
    private final CheckpointRecoveryFactory recoveryFactory;

    RestoreCheckpointResolver(CheckpointStorage jobStorage, CheckpointStorageRegistry storages,
                              CheckpointRecoveryFactory recoveryFactory) {
        this.jobStorage = jobStorage;
        this.storages = storages;
        this.recoveryFactory = recoveryFactory;
    }

    CompletedCheckpoint resolve(String spec) throws Exception {
        MainThreads.checkNotMainThread("reading the checkpoint to restore from (" + spec + ")");
        String trimmed = spec.trim();
        return trimmed.startsWith(LATEST_PREFIX) ? latestOf(trimmed) : atPath(trimmed);
    }

    private CompletedCheckpoint latestOf(String spec) throws Exception {
        String idText = spec.substring(LATEST_PREFIX.length()).trim();
        JobId jobId;
        try {
            jobId = JobId.of(idText);
        } catch (RuntimeException e) {
            throw new RestoreCheckpointException("checkpoints.restore-from '" + spec + "' names no job id ("
                    + e.getMessage() + "); use latest:<32 hex digits of the job id>");
        }
        List<String> candidates = new ArrayList<>(recoveryFactory.retainedCheckpointPaths(jobId));
        String source = "the HA checkpoint pointers";
        if (candidates.isEmpty()) {
            List<Long> ids = new ArrayList<>(jobStorage.listCheckpointIds(jobId));
            Collections.reverse(ids);
            for (long id : ids) {
                candidates.add(jobStorage.metadataPath(jobId, id));
            }
            source = jobStorage.location() + "/" + jobId.value();
        }
        List<String> unusable = new ArrayList<>();
        for (String path : candidates) {
            try {
                return jobStorage.readMetadata(path);
            } catch (CorruptCheckpointException e) {
                unusable.add(path + ": corrupt (" + e.getMessage() + ")");
            } catch (BlobNotFoundException e) {
                unusable.add(path + ": missing");
            }
        }
        if (candidates.isEmpty()) {
            throw new RestoreCheckpointException("checkpoints.restore-from '" + spec + "': job " + jobId
                    + " has no retained checkpoint (neither HA checkpoint pointers nor checkpoints in "
                    + jobStorage.location() + "). Check the job id, and that checkpoints.dir is the one that job used.");
        }
        throw new RestoreCheckpointException("checkpoints.restore-from '" + spec + "': none of the "
                + candidates.size() + " retained checkpoints of job " + jobId + " (from " + source
                + ") could be read: " + String.join("; ", unusable)
                + ". Repair one, or pass the path of an intact checkpoint directory.");
    }

    /** Whether {@code location} is the job's own checkpoint storage. */
    private boolean sameLocation(String location) {
        try {
            return storages.forLocation(location).location().equals(jobStorage.location());
        } catch (RuntimeException e) {
            return false;
        }
    }

    /**
     * A checkpoint directory outside the job's checkpoint storage ({@code path}, without a trailing
     * {@code _metadata}): its metadata is read from there, and its state files, relative to it, are
     * named by their full location, so the tasks read them there too.
     */
    private CompletedCheckpoint elsewhere(String spec, String path) {
        int slash = path.lastIndexOf('/');
        if (slash <= 0 || slash == path.length() - 1) {
            throw notACheckpoint(spec, "");
        }
        String parent = path.substring(0, slash);
        String name = path.substring(slash + 1);
        CheckpointStorage storage;
        try {
            storage = storages.forLocation(parent);
        } catch (RuntimeException e) {
            throw new RestoreCheckpointException("checkpoints.restore-from '" + spec + "': its location " + parent
                    + " cannot be opened (" + e.getMessage() + ")");
        }
        String metadata = name + "/" + CheckpointStorage.METADATA_FILE;
        CompletedCheckpoint cp;
        try {
            cp = storage.readMetadata(metadata);
        } catch (BlobNotFoundException e) {
            throw notACheckpoint(spec, " (there is no " + storage.locationOf(metadata) + ")");
        } catch (CorruptCheckpointException e) {
            throw new RestoreCheckpointException("checkpoints.restore-from '" + spec + "': its metadata is corrupt ("
                    + e.getMessage() + "). Nothing was changed; pass another checkpoint or savepoint.");
        }
        List<io.sluice.checkpoint.TaskStateHandle> handles = new ArrayList<>(cp.taskStates().size());
        java.util.function.UnaryOperator<String> located = file -> file == null || CheckpointStorage.isLocation(file)
                ? file : storage.locationOf(file);
        for (io.sluice.checkpoint.TaskStateHandle h : cp.taskStates()) {
            // Every file by its full location: keyed state, operator state, and RocksDB's files.
            handles.add(new io.sluice.checkpoint.TaskStateHandle(h.vertexId(), h.subtaskIndex(), located.apply(h.stateFile()),
                    h.stateSize(), h.sourcePosition(), h.keyGroupRange(), h.inlineState(), h.operatorState(),
                    located.apply(h.operatorStateFile()), h.incremental() == null ? null : h.incremental().withPaths(located)));
        }
        return new CompletedCheckpoint(cp.jobId(), cp.checkpointId(), cp.triggerTimestampMillis(),
                cp.completionTimestampMillis(), handles, storage.locationOf(metadata));
    }

    private static RestoreCheckpointException notACheckpoint(String spec, String detail) {
        return new RestoreCheckpointException("checkpoints.restore-from '" + spec + "' is not a checkpoint or"
                + " savepoint" + detail + ": expected a directory holding a _metadata file (a chk-<n> directory, where"
                + " ever it was copied to, or its _metadata file), or latest:<jobId>");
    }

    private CompletedCheckpoint atPath(String spec) {
        String path = spec.replace('\\', '/');
        while (path.endsWith("/")) {
            path = path.substring(0, path.length() - 1);
        }
        if (path.endsWith("/" + CheckpointStorage.METADATA_FILE)) {
            path = path.substring(0, path.length() - CheckpointStorage.METADATA_FILE.length() - 1);
        }
        Matcher m = CHECKPOINT_DIR.matcher(path);
        if (!m.matches() || !sameLocation(m.group(1))) {
            return elsewhere(spec, path);
        }
        JobId jobId = JobId.of(m.group(2).toLowerCase(java.util.Locale.ROOT));
        long checkpointId = Long.parseLong(m.group(3));
        String storageLocation = jobStorage.location();
        String metadata = jobStorage.metadataPath(jobId, checkpointId);
        try {
            return jobStorage.readMetadata(metadata);
        } catch (BlobNotFoundException e) {
            throw new RestoreCheckpointException("checkpoints.restore-from '" + spec + "': there is no checkpoint at "
                    + storageLocation + "/" + metadata + " (no _metadata; the checkpoint never completed or was"
                    + " deleted). Pass a chk-<n> directory that holds a _metadata file, or latest:" + jobId + ".");
        } catch (CorruptCheckpointException e) {
            throw new RestoreCheckpointException("checkpoints.restore-from '" + spec + "': the checkpoint is corrupt ("
                    + e.getMessage() + "). Pass an older chk-<n> directory of job " + jobId + ".");
        }
    }
}
