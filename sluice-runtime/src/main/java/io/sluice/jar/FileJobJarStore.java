package io.sluice.jar;

import io.sluice.graph.JobId;
import io.sluice.rpc.MainThreads;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * A {@link JobJarStore} in a directory, {@code <dir>/<jobId>.jar} (the embedded HA services use
 * {@code <haDir>/jobjars}). Files are written under a temporary name and renamed, so a reader never
 * sees a partial jar. Names come from job ids only, never from user input.
 *
 * <p>Threading: thread-safe; blocking, I/O executor only.
 */
public final class FileJobJarStore implements JobJarStore {
    private final Path dir;

    public FileJobJarStore(Path dir) {
        this.dir = dir.toAbsolutePath().normalize();
    }

    private Path fileOf(JobId jobId) {
        return dir.resolve(jobId + ".jar");
    }

    @Override
    public void putJobJar(JobId jobId, Path jar) throws IOException {
        MainThreads.checkNotMainThread("job jar store put " + jobId);
        Path file = fileOf(jobId);
        Path tmp = dir.resolve(jobId + ".jar.tmp");
        try {
            Files.createDirectories(dir);
            Files.copy(jar, tmp, StandardCopyOption.REPLACE_EXISTING);
            Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            Files.deleteIfExists(tmp);
            throw new IOException("Could not store the jar of job " + jobId + " at " + file + " (" + e
                    + "); check that the HA directory is writable and has space", e);
        }
    }

    @Override
    public boolean hasJobJar(JobId jobId) {
        MainThreads.checkNotMainThread("job jar store lookup " + jobId);
        return Files.isRegularFile(fileOf(jobId));
    }

    @Override
    public void copyJobJar(JobId jobId, Path target) throws IOException {
        MainThreads.checkNotMainThread("job jar store read " + jobId);
        Path file = fileOf(jobId);
        try {
            Files.copy(file, target, StandardCopyOption.REPLACE_EXISTING);
        } catch (NoSuchFileException e) {
            throw new IOException("There is no jar of job " + jobId + " at " + file + ": it was removed (the job ended)"
                    + " or never stored; resubmit the jar if the job should still run", e);
        }
    }

    @Override
    public void removeJobJar(JobId jobId) throws IOException {
        MainThreads.checkNotMainThread("job jar store remove " + jobId);
        Files.deleteIfExists(fileOf(jobId));
    }
}
