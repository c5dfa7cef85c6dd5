package io.sluice.jar;

import io.sluice.graph.JobId;
import io.sluice.rpc.MainThreads;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A {@link JobJarStore} in memory (for the in-memory HA services: survives job-manager failover
 * within the process, not the process). Threading: thread-safe; I/O executor only, as every store.
 */
public final class InMemoryJobJarStore implements JobJarStore {
    private final Map<JobId, byte[]> jars = new ConcurrentHashMap<>();

    @Override
    public void putJobJar(JobId jobId, Path jar) throws IOException {
        MainThreads.checkNotMainThread("job jar store put " + jobId);
        jars.put(jobId, Files.readAllBytes(jar));
    }

    @Override
    public boolean hasJobJar(JobId jobId) {
        MainThreads.checkNotMainThread("job jar store lookup " + jobId);
        return jars.containsKey(jobId);
    }

    @Override
    public void copyJobJar(JobId jobId, Path target) throws IOException {
        MainThreads.checkNotMainThread("job jar store read " + jobId);
        byte[] bytes = jars.get(jobId);
        if (bytes == null) {
            throw new IOException("There is no jar of job " + jobId + " in memory: the job ended or was never stored");
        }
        Files.write(target, bytes);
    }

    @Override
    public void removeJobJar(JobId jobId) {
        MainThreads.checkNotMainThread("job jar store remove " + jobId);
        jars.remove(jobId);
    }
}
