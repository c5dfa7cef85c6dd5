package io.sluice.ha.embedded;

import io.sluice.graph.JobId;
import io.sluice.ha.CheckpointPointerStore;
import io.sluice.rpc.MainThreads;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The HA record of which checkpoints of a job are completed: one small pointer file per retained
 * checkpoint, {@code <dir>/<jobId>/<checkpointId, zero-padded to 19 digits>} (the embedded HA
 * services use {@code <haDir>/checkpoints}), holding the storage path of its metadata as UTF-8.
 * Zero-padding makes the name order the id order.
 *
 * <p>The pointer store does no fencing itself: writers wrap calls in
 * {@link io.sluice.ha.LeaderElection#runIfLeader}. Threading: thread-safe; every method blocks on
 * the file system and first checks that it is not on a component main thread. Writes are atomic;
 * removals are idempotent.
 */
public final class FileCheckpointPointerStore implements CheckpointPointerStore {
    private static final Logger LOG = LoggerFactory.getLogger(FileCheckpointPointerStore.class);

    private final Path dir;

    public FileCheckpointPointerStore(Path dir) {
        this.dir = dir.toAbsolutePath().normalize();
    }

    /** Ids of the job's pointers, ascending: one directory listing, no pointer is read. */
    @Override
    public List<Long> checkpointIds(JobId jobId) throws IOException {
        MainThreads.checkNotMainThread("checkpoint pointer store list " + jobId);
        Path jobDir = jobDir(jobId);
        List<Long> ids = new ArrayList<>();
        for (String name : AtomicFiles.list(jobDir)) {
            try {
                ids.add(Long.parseLong(name));
            } catch (NumberFormatException e) {
                LOG.warn("Ignoring {} among the checkpoint pointers of job {}: not a checkpoint id",
                        jobDir.resolve(name), jobId);
            }
        }
        ids.sort(null);
        return ids;
    }

    /** Persists the pointer of checkpoint {@code checkpointId} atomically. */
    @Override
    public void writePointer(JobId jobId, long checkpointId, String metadataPath) throws IOException {
        MainThreads.checkNotMainThread("checkpoint pointer store write " + jobId + "/" + checkpointId);
        Path file = pointerFile(jobId, checkpointId);
        try {
            AtomicFiles.write(file, metadataPath.getBytes(StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new IOException("Could not persist the pointer of checkpoint " + checkpointId + " of job " + jobId
                    + " at " + file + " (" + e + "); check that the HA directory is writable and has space", e);
        }
    }

    /**
     * The metadata path the pointer of checkpoint {@code checkpointId} holds.
     *
     * @throws NoSuchFileException if there is no such pointer (message names the job and the file)
     */
    @Override
    public String readPointer(JobId jobId, long checkpointId) throws IOException {
        MainThreads.checkNotMainThread("checkpoint pointer store read " + jobId + "/" + checkpointId);
        Path file = pointerFile(jobId, checkpointId);
        try {
            return new String(Files.readAllBytes(file), StandardCharsets.UTF_8);
        } catch (NoSuchFileException e) {
            throw new NoSuchFileException(file.toString(), null,
                    "no pointer of checkpoint " + checkpointId + " of job " + jobId);
        }
    }

    /** Removes one pointer; idempotent. */
    @Override
    public void removePointer(JobId jobId, long checkpointId) throws IOException {
        MainThreads.checkNotMainThread("checkpoint pointer store remove " + jobId + "/" + checkpointId);
        Files.deleteIfExists(pointerFile(jobId, checkpointId));
    }

    /** Removes every pointer of the job and its directory; idempotent. */
    @Override
    public void removeAll(JobId jobId) throws IOException {
        MainThreads.checkNotMainThread("checkpoint pointer store remove all " + jobId);
        Path jobDir = jobDir(jobId);
        List<Path> entries;
        try (var stream = Files.list(jobDir)) {
            entries = stream.toList();
        } catch (NoSuchFileException e) {
            return;
        }
        for (Path entry : entries) {
            Files.deleteIfExists(entry);
        }
        Files.deleteIfExists(jobDir);
    }

    /** Where the pointer of a checkpoint lives. Does no I/O. */
    public Path pointerFile(JobId jobId, long checkpointId) {
        if (checkpointId < 0) {
            throw new IllegalArgumentException("Checkpoint ids are >= 0, got " + checkpointId);
        }
        return jobDir(jobId).resolve(String.format("%019d", checkpointId));
    }

    private Path jobDir(JobId jobId) {
        return dir.resolve(jobId.value());
    }
}
