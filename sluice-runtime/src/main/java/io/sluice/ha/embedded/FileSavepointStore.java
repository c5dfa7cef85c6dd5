package io.sluice.ha.embedded;

import io.sluice.checkpoint.Savepoint;
import io.sluice.graph.JobId;
import io.sluice.ha.SavepointEntry;
import io.sluice.ha.SavepointStore;
import io.sluice.rpc.MainThreads;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A {@link SavepointStore} keeping one file per savepoint, {@code <dir>/<jobId>/<checkpointId, 19
 * digits>} (the embedded HA services use {@code <haDir>/savepoints}), in {@link SavepointEntry}'s
 * format. Zero-padding makes the name order the id order.
 *
 * <p>Threading: thread-safe and stateless beyond the files. Every method blocks on the file system
 * and first checks that it is not on a component main thread. Writes are atomic (temporary file,
 * then rename); removals idempotent.
 */
public final class FileSavepointStore implements SavepointStore {
    private final Path dir;

    public FileSavepointStore(Path dir) {
        this.dir = dir.toAbsolutePath().normalize();
    }

    @Override
    public void addSavepoint(Savepoint savepoint, int retain) throws IOException {
        MainThreads.checkNotMainThread("savepoint store add " + savepoint.jobId() + "/" + savepoint.checkpointId());
        Path jobDir = dir.resolve(savepoint.jobId().value());
        Path file = jobDir.resolve(SavepointEntry.nameOf(savepoint.checkpointId()));
        try {
            AtomicFiles.write(file, SavepointEntry.toBytes(savepoint));
            List<String> names = entryNames(jobDir);
            for (int i = 0; i < names.size() - retain; i++) {
                Files.deleteIfExists(jobDir.resolve(names.get(i)));
            }
        } catch (IOException e) {
            throw new IOException("Could not store the entry of savepoint " + savepoint.path() + " of job "
                    + savepoint.jobId() + " at " + file + " (" + e + "); check that the HA directory is writable and"
                    + " has space", e);
        }
    }

    @Override
    public Stored savepoints() throws IOException {
        MainThreads.checkNotMainThread("savepoint store list " + dir);
        Map<JobId, List<Savepoint>> byJob = new HashMap<>();
        List<String> unreadable = new ArrayList<>();
        for (String name : AtomicFiles.list(dir)) {
            JobId jobId;
            try {
                jobId = JobId.of(name);
            } catch (IllegalArgumentException e) {
                unreadable.add(dir.resolve(name) + ": not named by a job id");
                continue;
            }
            read(jobId, byJob, unreadable);
        }
        return new Stored(byJob, unreadable);
    }

    @Override
    public Stored savepoints(JobId jobId) throws IOException {
        MainThreads.checkNotMainThread("savepoint store read " + jobId);
        Map<JobId, List<Savepoint>> byJob = new HashMap<>();
        List<String> unreadable = new ArrayList<>();
        read(jobId, byJob, unreadable);
        return new Stored(byJob, unreadable);
    }

    private void read(JobId jobId, Map<JobId, List<Savepoint>> byJob, List<String> unreadable) throws IOException {
        Path jobDir = dir.resolve(jobId.value());
        List<Savepoint> savepoints = new ArrayList<>();
        for (String name : AtomicFiles.list(jobDir)) {
            Path file = jobDir.resolve(name);
            byte[] data;
            try {
                data = Files.readAllBytes(file);
            } catch (NoSuchFileException e) {
                continue; // removed meanwhile (beyond the retained ones)
            }
            try {
                savepoints.add(SavepointEntry.fromBytes(data, jobId, name, file.toString()));
            } catch (IOException e) {
                unreadable.add(e.getMessage());
            }
        }
        if (!savepoints.isEmpty()) {
            byJob.put(jobId, savepoints);
        }
    }

    /** The job's entry names, ascending (temporary files are not listed); others are left alone. */
    private static List<String> entryNames(Path jobDir) throws IOException {
        List<String> names = new ArrayList<>();
        for (String name : AtomicFiles.list(jobDir)) {
            if (name.length() == 19 && name.chars().allMatch(Character::isDigit)) {
                names.add(name);
            }
        }
        return names;
    }
}
