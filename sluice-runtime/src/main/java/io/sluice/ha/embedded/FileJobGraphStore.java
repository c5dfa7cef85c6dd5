package io.sluice.ha.embedded;

import io.sluice.graph.JobGraph;
import io.sluice.graph.JobId;
import io.sluice.ha.JobAlreadySubmittedException;
import io.sluice.ha.JobGraphStore;
import io.sluice.rpc.MainThreads;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link JobGraphStore} keeping one file per job, {@code <dir>/<jobId>} (the embedded HA
 * services use {@code <haDir>/jobgraphs}), holding {@link JobGraph#toBytes()}.
 *
 * <p>Threading: thread-safe and stateless beyond the files. Every method blocks on the file
 * system and first checks that it is not on a component main thread. {@link #putJobGraph} writes a
 * temporary file and then links it to {@code <dir>/<jobId>} only if that name does not exist yet
 * (an exclusive create: {@link Files#createLink}, or {@code CREATE_NEW} where links are not
 * supported), so a reader never sees a partial graph and of two puts of the same job id exactly one
 * succeeds; the other gets {@link JobAlreadySubmittedException}. {@link #removeJobGraph} is
 * idempotent.
 */
public final class FileJobGraphStore implements JobGraphStore {
    private static final Logger LOG = LoggerFactory.getLogger(FileJobGraphStore.class);

    private final Path dir;

    public FileJobGraphStore(Path dir) {
        this.dir = dir.toAbsolutePath().normalize();
    }

    @Override
    public void putJobGraph(JobGraph jobGraph) throws IOException, JobAlreadySubmittedException {
        MainThreads.checkNotMainThread("job graph store put " + jobGraph.jobId());
        Path file = fileOf(jobGraph.jobId());
        try {
            if (!AtomicFiles.createExclusively(file, jobGraph.toBytes())) {
                throw new JobAlreadySubmittedException(jobGraph.jobId(), file.toString());
            }
        } catch (IOException e) {
            throw new IOException("Could not store the job graph of job " + jobGraph.jobId() + " at " + file + " ("
                    + e + "); check that the HA directory is writable and has space", e);
        }
    }

    @Override
    public Collection<JobId> jobIds() throws IOException {
        MainThreads.checkNotMainThread("job graph store list " + dir);
        List<JobId> ids = new ArrayList<>();
        for (String name : AtomicFiles.list(dir)) {
            try {
                ids.add(JobId.of(name));
            } catch (IllegalArgumentException e) {
                LOG.warn("Ignoring {} in the job graph store: not named by a job id", dir.resolve(name));
            }
        }
        return ids;
    }

    @Override
    public JobGraph recoverJobGraph(JobId jobId) throws IOException {
        MainThreads.checkNotMainThread("job graph store recover " + jobId);
        Path file = fileOf(jobId);
        byte[] data;
        try {
            data = Files.readAllBytes(file);
        } catch (NoSuchFileException e) {
            throw new IOException("There is no job graph of job " + jobId + " at " + file + ": it was removed (the job"
                    + " ended) or never stored. Resubmit the job if it should still run.", e);
        }
        JobGraph graph;
        try {
            graph = JobGraph.fromBytes(data);
        } catch (RuntimeException e) {
            throw new IOException("The job graph of job " + jobId + " at " + file + " is corrupt (" + e.getMessage()
                    + "). Restore the file from a backup, or remove it and resubmit the job.", e);
        }
        if (!graph.jobId().equals(jobId)) {
            throw new IOException("The file " + file + " of job " + jobId + " holds the job graph of job "
                    + graph.jobId() + "; it was copied or renamed by hand. Restore the right file or remove it.");
        }
        return graph;
    }

    @Override
    public void removeJobGraph(JobId jobId) throws IOException {
        MainThreads.checkNotMainThread("job graph store remove " + jobId);
        Files.deleteIfExists(fileOf(jobId));
    }

    private Path fileOf(JobId jobId) {
        return dir.resolve(jobId.value());
    }
}
