package io.sluice.ha.embedded;

import io.sluice.checkpoint.CheckpointIdCounter;
import io.sluice.graph.JobId;
import io.sluice.rpc.MainThreads;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/**
 * A {@link CheckpointIdCounter} persisted in one file holding the next id as decimal text (the
 * embedded HA services use {@code <haDir>/checkpoint-counters/<jobId>}), so that ids never repeat
 * across restarts of the JVM. The next id is the larger of the stored one and the minimum given
 * at creation. {@link #getAndIncrement()} persists the incremented value atomically before it
 * returns, so a returned id is never handed out again.
 *
 * <p>Threading: thread-safe (methods are serialized); blocking, I/O threads only. One counter
 * instance per job at a time (the leader's).
 */
public final class FileCheckpointIdCounter implements CheckpointIdCounter {
    private final JobId jobId;
    private final Path file;
    // Guarded by this.
    private long next;

    private FileCheckpointIdCounter(JobId jobId, Path file, long next) {
        this.jobId = jobId;
        this.file = file;
        this.next = next;
    }

    /** Reads the stored value of {@code file}, if any; blocking. */
    public static FileCheckpointIdCounter open(JobId jobId, Path file, long minimumNextId) throws IOException {
        MainThreads.checkNotMainThread("checkpoint id counter open " + jobId);
        if (minimumNextId < 0) {
            throw new IllegalArgumentException("The minimum next checkpoint id must be >= 0, got " + minimumNextId);
        }
        long stored = -1;
        try {
            String text = new String(Files.readAllBytes(file), StandardCharsets.UTF_8).trim();
            stored = Long.parseLong(text);
        } catch (NoSuchFileException e) {
            // A job that never checkpointed under HA.
        } catch (NumberFormatException e) {
            throw new IOException("The checkpoint id counter of job " + jobId + " at " + file + " is corrupt ("
                    + e.getMessage() + "). Write the id after the job's latest checkpoint into it, or delete it to"
                    + " continue after the latest retained checkpoint.", e);
        }
        return new FileCheckpointIdCounter(jobId, file, Math.max(stored, minimumNextId));
    }

    @Override
    public synchronized long getAndIncrement() throws IOException {
        MainThreads.checkNotMainThread("checkpoint id counter increment " + jobId);
        long id = next;
        try {
            AtomicFiles.write(file, Long.toString(id + 1).getBytes(StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new IOException("Could not persist the checkpoint id counter of job " + jobId + " at " + file
                    + " (" + e + "); no checkpoint id was taken. Check that the HA directory is writable.", e);
        }
        next = id + 1;
        return id;
    }

    @Override
    public synchronized long peek() {
        return next;
    }
}
