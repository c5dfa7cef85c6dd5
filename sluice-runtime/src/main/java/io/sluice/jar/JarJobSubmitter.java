package io.sluice.jar;

import io.sluice.config.Configuration;
import io.sluice.config.PipelineOptions;
import io.sluice.dispatcher.DispatcherGateway;
import io.sluice.graph.JobGraph;
import io.sluice.graph.JobId;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a jar as a job: loads the jar in a class loader of its own, runs its entry
 * point's {@code main} to capture the job graph ({@link PackagedProgram}), stores the jar in the HA
 * services' {@link JobJarStore} (before the job graph, so any job manager that recovers the job
 * finds its jar) and submits the graph to the dispatcher. The job's class loader stays registered in
 * {@link UserCodeClassLoaders} while the job manager and the job's tasks hold leases on it.
 *
 * <p>Threading: {@link #run} returns at once; the work runs on the I/O executor and on the program's
 * own thread.
 */
public final class JarJobSubmitter {
    private static final Logger LOG = LoggerFactory.getLogger(JarJobSubmitter.class);
    /** How long a program's {@code main} may take to call {@code execute}. */
    public static final Duration DEFAULT_MAIN_TIMEOUT = Duration.ofSeconds(60);

    private final UserCodeClassLoaders loaders;
    private final Supplier<JobJarStore> jobJars;
    private final Supplier<DispatcherGateway> dispatcher;
    private final Executor ioExecutor;
    private final Duration mainTimeout;

    public JarJobSubmitter(UserCodeClassLoaders loaders, Supplier<JobJarStore> jobJars,
                           Supplier<DispatcherGateway> dispatcher, Executor ioExecutor, Duration mainTimeout) {
        this.loaders = loaders;
        this.jobJars = jobJars;
        this.dispatcher = dispatcher;
        this.ioExecutor = ioExecutor;
        this.mainTimeout = mainTimeout;
    }

    /**
     * Runs the program of {@code jar} (named {@code jarName} in messages and logs); completes with the
     * job id once the dispatcher accepted the job. Fails with {@link JarException} (no entry class,
     * {@code main} failed) or the dispatcher's {@link io.sluice.dispatcher.JobSubmissionException}.
     * {@code jar} is copied before the future completes, so the caller may delete it afterwards.
     */
    public CompletableFuture<JobId> run(Path jar, String jarName, ProgramRequest request) {
        JobId jobId = JobId.generate();
        return CompletableFuture.supplyAsync(() -> prepare(jar, jarName, request, jobId), ioExecutor)
                .thenCompose(prepared -> prepared.program().captureJobGraph(prepared.lease().classLoader(),
                                request.args(), runConfiguration(request), jobId, mainTimeout)
                        .thenApplyAsync(graph -> storeJar(graph, prepared), ioExecutor)
                        .thenCompose(graph -> dispatcher.get().submitJob(graph))
                        .whenCompleteAsync((id, error) -> {
                            prepared.lease().close(); // the dispatcher holds its own lease while the job runs
                            if (error != null) {
                                removeJarQuietly(jobId);
                            } else {
                                LOG.info("Job {} submitted from jar {} ({})", id, jarName, prepared.program().entryClass());
                            }
                        }, ioExecutor));
    }

    private record Prepared(PackagedProgram program, ClassLoaderLease lease) {
    }

    private Prepared prepare(Path jar, String jarName, ProgramRequest request, JobId jobId) {
        Path copy = null;
        try {
            copy = loaders.jarCopyFor(jobId);
            Files.copy(jar, copy, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            PackagedProgram program = PackagedProgram.of(copy, jarName, request.entryClass());
            return new Prepared(program, loaders.register(jobId, copy));
        } catch (IOException e) {
            deleteQuietly(copy);
            throw new UncheckedIOException("Could not read the jar " + jarName + " (" + e + ")", e);
        } catch (RuntimeException e) {
            deleteQuietly(copy);
            throw e;
        }
    }

    private static void deleteQuietly(Path file) {
        try {
            if (file != null) {
                Files.deleteIfExists(file);
            }
        } catch (IOException e) {
            LOG.warn("Could not delete {}: {}", file, e.toString());
        }
    }

    private JobGraph storeJar(JobGraph graph, Prepared prepared) {
        try {
            jobJars.get().putJobJar(graph.jobId(), prepared.program().jar());
            return graph;
        } catch (IOException e) {
            throw new CompletionException(e);
        }
    }

    private void removeJarQuietly(JobId jobId) {
        try {
            jobJars.get().removeJobJar(jobId);
        } catch (IOException | RuntimeException e) {
            LOG.warn("Could not remove the stored jar of the rejected job {}: {}", jobId, e.toString());
        }
    }

    private static Configuration runConfiguration(ProgramRequest request) {
        Configuration c = new Configuration();
        for (Map.Entry<String, String> e : request.config().entrySet()) {
            c.setString(e.getKey(), e.getValue());
        }
        if (request.parallelism() != null) {
            c.set(PipelineOptions.PARALLELISM, request.parallelism());
        }
        return c;
    }
}
