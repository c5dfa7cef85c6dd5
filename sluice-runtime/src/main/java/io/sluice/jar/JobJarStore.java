package io.sluice.jar;

import io.sluice.graph.JobId;
import java.io.IOException;
import java.nio.file.Path;

/**
 * Where the HA services keep the jar of each job submitted from a jar, beside its job graph, so
 * that any job manager that recovers the job (after a failover or a restart) can load its classes.
 * Stored when the job is submitted (before its graph), removed when it has ended.
 *
 * <p>Threading: thread-safe; every method blocks on storage and may only be called on an I/O
 * executor (implementations check with {@link io.sluice.rpc.MainThreads#checkNotMainThread}).
 */
public interface JobJarStore {

    /** Stores {@code jar} as the jar of {@code jobId}, replacing any earlier one. */
    void putJobJar(JobId jobId, Path jar) throws IOException;

    /** Whether a jar is stored for {@code jobId} (false for jobs not submitted from a jar). */
    boolean hasJobJar(JobId jobId) throws IOException;

    /** Copies the jar of {@code jobId} to {@code target}; fails if there is none. */
    void copyJobJar(JobId jobId, Path target) throws IOException;

    /** Removes the jar of {@code jobId}; does nothing if there is none. */
    void removeJobJar(JobId jobId) throws IOException;

    /** A store for HA services that cannot keep jars yet: jobs without jars work, submitting a jar fails saying why. */
    static JobJarStore unsupported(String haServices) {
        return unsupported(haServices, "use high-availability.type: embedded (or memory) to run jobs from jars");
    }

    /** Like {@link #unsupported(String)}, with {@code advice} saying what to configure to run jobs from jars. */
    static JobJarStore unsupported(String haServices, String advice) {
        return new JobJarStore() {
            @Override
            public void putJobJar(JobId jobId, Path jar) throws IOException {
                throw new IOException("The HA services " + haServices + " cannot store job jars, so a job from a"
                        + " jar could not be recovered by another job manager; " + advice);
            }

            @Override
            public boolean hasJobJar(JobId jobId) {
                return false;
            }

            @Override
            public void copyJobJar(JobId jobId, Path target) throws IOException {
                throw new IOException("The HA services " + haServices + " store no job jars (job " + jobId + ")");
            }

            @Override
            public void removeJobJar(JobId jobId) {
            }
        };
    }
}
