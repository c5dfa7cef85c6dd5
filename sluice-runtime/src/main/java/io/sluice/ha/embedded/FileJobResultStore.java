package io.sluice.ha.embedded;

import io.sluice.core.serialization.LegacySerializerObjectInputStream;
import io.sluice.graph.JobId;
import io.sluice.ha.JobResultStore;
import io.sluice.job.JobResult;
import io.sluice.rpc.MainThreads;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link JobResultStore} keeping one file per finished job, {@code <dir>/<jobId>} (the embedded
 * HA services use {@code <haDir>/jobresults}), holding the Java-serialized {@link JobResult}.
 *
 * <p>Threading: thread-safe and stateless beyond the files. Every method blocks on the file
 * system and first checks that it is not on a component main thread. Writes are atomic
 * (temporary file, then atomic rename); {@link #putResult} is idempotent.
 */
public final class FileJobResultStore implements JobResultStore {
    private static final Logger LOG = LoggerFactory.getLogger(FileJobResultStore.class);

    private final Path dir;

    public FileJobResultStore(Path dir) {
        this.dir = dir.toAbsolutePath().normalize();
    }

    @Override
    public void putResult(JobResult result) throws IOException {
        MainThreads.checkNotMainThread("job result store put " + result.jobId());
        Path file = fileOf(result.jobId());
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
            out.writeObject(result);
        }
        try {
            AtomicFiles.write(file, bytes.toByteArray());
        } catch (IOException e) {
            throw new IOException("Could not store the result of job " + result.jobId() + " at " + file + " (" + e
                    + "); check that the HA directory is writable and has space", e);
        }
    }

    @Override
    public boolean hasResult(JobId jobId) {
        MainThreads.checkNotMainThread("job result store has " + jobId);
        return Files.exists(fileOf(jobId));
    }

    @Override
    public Optional<JobResult> result(JobId jobId) throws IOException {
        MainThreads.checkNotMainThread("job result store get " + jobId);
        return read(jobId);
    }

    @Override
    public Collection<JobResult> results() throws IOException {
        MainThreads.checkNotMainThread("job result store list " + dir);
        List<JobResult> results = new ArrayList<>();
        for (String name : AtomicFiles.list(dir)) {
            JobId jobId;
            try {
                jobId = JobId.of(name);
            } catch (IllegalArgumentException e) {
                LOG.warn("Ignoring {} in the job result store: not named by a job id", dir.resolve(name));
                continue;
            }
            read(jobId).ifPresent(results::add);
        }
        return results;
    }

    @Override
    public void removeResult(JobId jobId) throws IOException {
        MainThreads.checkNotMainThread("job result store remove " + jobId);
        Path file = fileOf(jobId);
        try {
            Files.deleteIfExists(file);
        } catch (IOException e) {
            throw new IOException("Could not remove the result of job " + jobId + " at " + file + " (" + e
                    + "); check that the HA directory is writable", e);
        }
    }

    private Optional<JobResult> read(JobId jobId) throws IOException {
        Path file = fileOf(jobId);
        byte[] data;
        try {
            data = Files.readAllBytes(file);
        } catch (NoSuchFileException e) {
            return Optional.empty();
        }
        Object value;
        try (ObjectInputStream in = new LegacySerializerObjectInputStream(new ByteArrayInputStream(data), JobResult.class.getClassLoader())) {
            value = in.readObject();
        } catch (IOException | ClassNotFoundException e) {
            throw new IOException("The result of job " + jobId + " at " + file + " is corrupt (" + e + "). Restore"
                    + " the file from a backup; removing it lets the job run again.", e);
        }
        if (!(value instanceof JobResult result) || !result.jobId().equals(jobId)) {
            throw new IOException("The file " + file + " does not hold the result of job " + jobId
                    + "; it was copied or renamed by hand. Restore the right file.");
        }
        return Optional.of(result);
    }

    private Path fileOf(JobId jobId) {
        return dir.resolve(jobId.value());
    }
}
