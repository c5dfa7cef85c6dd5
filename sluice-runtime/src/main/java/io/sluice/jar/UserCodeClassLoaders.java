package io.sluice.jar;

import io.sluice.graph.JobId;
import io.sluice.rpc.MainThreads;
import io.sluice.util.ProcessTempFiles;
import java.io.IOException;
import java.net.MalformedURLException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executor;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The class loaders of the jobs that came from jars, shared by the job managers and task executors
 * of one process ({@link io.sluice.cluster.LocalCluster}). Each job's loader is a
 * {@link ChildFirstClassLoader} over a private copy of the job's jar in {@link #cacheDirectory()};
 * it lives while a {@link ClassLoaderLease} on it is open (the job manager's, one per running task)
 * and is closed, and its jar copy deleted, when the last lease closes, so an ended job leaves no
 * loader (and none of its classes) behind.
 *
 * <p>The cache directory of {@link #inTemporaryDirectory} is named after the process's claim on
 * {@code java.io.tmpdir} ({@code sluice-job-jars-<claim token>-<uuid>} there); {@link #close} deletes it
 * with whatever it still holds, and the first jar copy of a process deletes the directories of processes
 * that no longer run ({@link ProcessTempFiles}), so neither a stopped nor a killed process leaves jar
 * copies behind for good.
 *
 * <p>Threading: thread-safe. {@link #acquire} may read the HA job jar store and {@link #jarCopyFor}
 * writes the cache directory: I/O executor only (checked); {@link #acquireIfLoaded} and
 * {@link #defaultLease} read memory only (any thread, main threads included). Closing a loader and deleting its jar copy run on the I/O executor;
 * {@link #close} on the thread closing the process's components, after them.
 */
public final class UserCodeClassLoaders {
    private static final Logger LOG = LoggerFactory.getLogger(UserCodeClassLoaders.class);
    /** The start of the names of {@link #inTemporaryDirectory}'s cache directories, before the claim token. */
    static final String CACHE_DIRECTORY_BASE = "sluice-job-jars-";

    private final Supplier<JobJarStore> jobJars;
    private final Executor ioExecutor;
    private final ClassLoader parent;
    private final Path cacheDirectory;
    private final Map<JobId, Shared> loaders = new HashMap<>();
    /** Set by {@link #close} (guarded by {@code loaders}): no jar copy is made after it. */
    private boolean closed;

    /**
     * @param jobJars        where recovered jobs' jars are read from (the HA services' store)
     * @param ioExecutor     where loaders are closed and jar copies deleted
     * @param parent         the parent of every job loader (the runtime's loader)
     * @param cacheDirectory where the private jar copies are kept (created on first use)
     */
    public UserCodeClassLoaders(Supplier<JobJarStore> jobJars, Executor ioExecutor, ClassLoader parent,
                                Path cacheDirectory) {
        this.jobJars = jobJars;
        this.ioExecutor = ioExecutor;
        this.parent = parent;
        this.cacheDirectory = cacheDirectory.toAbsolutePath().normalize();
    }

    /**
     * A registry whose jar copies go to a fresh directory under {@code java.io.tmpdir} (created when the
     * first jar is copied; what a cluster that runs no jar leaves there is its claim's lock file, while it runs,
     * deleted by a later process's sweep once it ended).
     */
    public static UserCodeClassLoaders inTemporaryDirectory(Supplier<JobJarStore> jobJars, Executor ioExecutor) {
        Path temporary = Path.of(System.getProperty("java.io.tmpdir"));
        String prefix;
        try {
            prefix = ProcessTempFiles.prefix(temporary, CACHE_DIRECTORY_BASE);
        } catch (IOException e) {
            // Jobs from jars still run; only a kill of this process would leave its jar copies behind.
            LOG.warn("Could not claim {} for the job jar cache ({}); its jar copies will not be deleted if this"
                    + " process is killed. Check java.io.tmpdir (a local disk, room and permissions)", temporary,
                    e.toString());
            prefix = CACHE_DIRECTORY_BASE + "unclaimed-" + ProcessHandle.current().pid() + "-";
        }
        return new UserCodeClassLoaders(jobJars, ioExecutor, UserCodeClassLoaders.class.getClassLoader(),
                temporary.resolve(prefix + java.util.UUID.randomUUID()));
    }

    public Path cacheDirectory() {
        return cacheDirectory;
    }

    /** A lease on the runtime's own loader, for jobs that did not come from a jar. */
    public ClassLoaderLease defaultLease() {
        return ClassLoaderLease.unmanaged(parent);
    }

    /**
     * Where a job's private jar copy goes; the caller writes it there before {@link #register}. Blocking
     * (the first call of a process also lists the temporary directory for ended processes' caches); not on
     * a main thread.
     */
    public Path jarCopyFor(JobId jobId) throws IOException {
        MainThreads.checkNotMainThread("making a jar copy for job " + jobId);
        synchronized (loaders) {
            if (closed) {
                throw new IllegalStateException("The class loaders of this process are closed: no jar copy for job "
                        + jobId);
            }
        }
        ProcessTempFiles.deleteLeftoversOnce(cacheDirectory.getParent(), CACHE_DIRECTORY_BASE);
        Files.createDirectories(cacheDirectory);
        return Files.createTempFile(cacheDirectory, jobId + "-", ".jar");
    }

    /**
     * Creates the loader of {@code jobId} over {@code jarCopy} (which the loader owns from now on
     * and deletes when it closes) and returns the first lease on it. Fails if the job already has a
     * loader. Any thread.
     */
    public ClassLoaderLease register(JobId jobId, Path jarCopy) {
        URL url;
        try {
            url = jarCopy.toUri().toURL();
        } catch (MalformedURLException e) {
            throw new IllegalArgumentException("Not a usable jar path: " + jarCopy, e);
        }
        synchronized (loaders) {
            if (loaders.containsKey(jobId)) {
                throw new IllegalStateException("Job " + jobId + " already has a class loader");
            }
            Shared shared = new Shared(jobId, new ChildFirstClassLoader("job-" + jobId, new URL[] {url}, parent), jarCopy);
            loaders.put(jobId, shared);
            return shared.lease();
        }
    }

    /** A lease on the loader of {@code jobId} if it has one now, else empty. Memory only; any thread. */
    public Optional<ClassLoaderLease> acquireIfLoaded(JobId jobId) {
        synchronized (loaders) {
            Shared shared = loaders.get(jobId);
            return shared == null ? Optional.empty() : Optional.of(shared.lease());
        }
    }

    /**
     * A lease on the loader of {@code jobId}: the one already loaded, or one created from the jar the
     * HA services stored for the job (after a restart or failover), or, for a job without a jar, the
     * runtime's own loader. Blocking; I/O executor only.
     */
    public ClassLoaderLease acquire(JobId jobId) throws IOException {
        MainThreads.checkNotMainThread("loading the class loader of job " + jobId);
        Optional<ClassLoaderLease> loaded = acquireIfLoaded(jobId);
        if (loaded.isPresent()) {
            return loaded.get();
        }
        JobJarStore store = jobJars.get();
        if (!store.hasJobJar(jobId)) {
            return defaultLease();
        }
        Path copy = jarCopyFor(jobId);
        try {
            store.copyJobJar(jobId, copy);
        } catch (IOException e) {
            Files.deleteIfExists(copy);
            throw e;
        }
        synchronized (loaders) {
            loaded = acquireIfLoaded(jobId); // another caller may have loaded it meanwhile
            if (loaded.isPresent()) {
                ioExecutor.execute(() -> deleteQuietly(copy));
                return loaded.get();
            }
            LOG.info("Loaded the jar of job {} from the HA services", jobId);
            return register(jobId, copy);
        }
    }

    /** Whether {@code jobId} has an open loader now (for tests and status). */
    public boolean isLoaded(JobId jobId) {
        synchronized (loaders) {
            return loaders.containsKey(jobId);
        }
    }

    /**
     * The process's components have closed: closes the loaders still open (jobs that did not end, whose
     * leases went with the process) and deletes the cache directory with every jar copy in it. Blocking;
     * idempotent; not on a main thread.
     */
    public void close() {
        java.util.List<Shared> open;
        synchronized (loaders) {
            closed = true;
            open = java.util.List.copyOf(loaders.values());
            loaders.clear();
        }
        for (Shared shared : open) {
            try {
                shared.loader.close();
            } catch (IOException e) {
                LOG.warn("Could not close the class loader of job {}: {}", shared.jobId, e.toString());
            }
        }
        try {
            ProcessTempFiles.deleteTree(cacheDirectory);
        } catch (IOException e) {
            LOG.warn("Could not delete the job jar cache {}: {} (delete it by hand)", cacheDirectory, e.toString());
        }
    }

    private void released(Shared shared) {
        synchronized (loaders) {
            if (closed) {
                return; // close() closed the loader and deleted the directory with its jar copy
            }
            if (loaders.get(shared.jobId) == shared) {
                loaders.remove(shared.jobId);
            }
        }
        ioExecutor.execute(() -> {
            try {
                shared.loader.close();
            } catch (IOException e) {
                LOG.warn("Could not close the class loader of job {}: {}", shared.jobId, e.toString());
            }
            RecordMethodCaches.forget(); // the JDK's record-method caches may hold one of the job's classes
            deleteQuietly(shared.jar);
        });
    }

    private static void deleteQuietly(Path file) {
        try {
            Files.deleteIfExists(file);
        } catch (IOException e) {
            LOG.warn("Could not delete the job jar copy {}: {}", file, e.toString());
        }
    }

    /** One job's loader and its reference count (guarded by {@code loaders}). */
    private final class Shared {
        final JobId jobId;
        final ChildFirstClassLoader loader;
        final Path jar;
        int leases;

        Shared(JobId jobId, ChildFirstClassLoader loader, Path jar) {
            this.jobId = jobId;
            this.loader = loader;
            this.jar = jar;
        }

        ClassLoaderLease lease() {
            leases++;
            return new Lease(this);
        }
    }

    /** One hold on a {@link Shared} loader; forgets it when closed, so a kept lease keeps no loader alive. */
    private final class Lease implements ClassLoaderLease {
        private Shared shared;

        Lease(Shared shared) {
            this.shared = shared;
        }

        @Override
        public ClassLoader classLoader() {
            synchronized (loaders) {
                if (shared == null) {
                    throw new IllegalStateException("This class loader lease is closed");
                }
                return shared.loader;
            }
        }

        @Override
        public void close() {
            Shared released;
            synchronized (loaders) {
                if (shared == null) {
                    return;
                }
                released = --shared.leases == 0 ? shared : null;
                shared = null;
            }
            if (released != null) {
                released(released);
            }
        }
    }
}
