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
 * Runs an uploaded jar as a job: loads the jar in a class loader of its own, runs its entry
 * point's {@code main} to capture the job graph ({@link PackagedProgram}), stores the jar in the HA
 * services' {@link JobJarStore} (before the job graph, so any job manager that recovers the job
 * finds its jar) and submits the graph to the dispatcher. The job's class loader stays registered in
 * {@link UserCodeClassLoaders} while the job manager and the job's tasks hold leases on it.
 *
 * <p>Threading: {@link #run} returns at once; the work runs on the I/O executor and on the program's
 * own thread.
 */
public final class JarRunner {
    private static final Logger LOG = LoggerFactory.getLogger(JarRunner.class);
    /** How long a program's {@code main} may take to call {@code execute}. */
    public static final Duration DEFAULT_MAIN_TIMEOUT = Duration.ofSeconds(60);

    private final JarStore jars;
    private final UserCodeClassLoaders loaders;
    private final Supplier<JobJarStore> jobJars;
    private final Supplier<DispatcherGateway> dispatcher;
    private final Executor ioExecutor;
    private final Duration mainTimeout;

    public JarRunner(JarStore jars, UserCodeClassLoaders loaders, Supplier<JobJarStore> jobJars,
                     Supplier<DispatcherGateway> dispatcher, Executor ioExecutor, Duration mainTimeout) {
        this.jars = jars;
        this.loaders = loaders;
        this.jobJars = jobJars;
        this.dispatcher = dispatcher;
        this.ioExecutor = ioExecutor;
        this.mainTimeout = mainTimeout;
    }

    /**
     * Runs the uploaded jar {@code jarId}; completes with the job id once the dispatcher accepted the
     * job. Fails with {@link JarException} (jar not found, no entry class, {@code main} failed) or the
     * dispatcher's {@link io.sluice.dispatcher.JobSubmissionException}.
     */
    public CompletableFuture<JobId> run(String jarId, ProgramRequest request) {
        JobId jobId = JobId.generate();
        return CompletableFuture.supplyAsync(() -> prepare(jarId, request, jobId), ioExecutor)
                .thenCompose(prepared -> prepared.program().captureJobGraph(prepared.lease().classLoader(),
                                request.args(), runConfiguration(request), jobId, mainTimeout)
                        .thenApplyAsync(graph -> storeJar(graph, prepared), ioExecutor)
                        .thenCompose(graph -> dispatcher.get().submitJob(graph))
                        .whenCompleteAsync((id, error) -> {
                            prepared.lease().close(); // the dispatcher holds its own lease while the job runs
                            if (error != null) {
                                removeJarQuietly(jobId);
                            } else {
                                LOG.info("Job {} submitted from jar {} ({})", id, jarId, prepared.program().entryClass());
                            }
                        }, ioExecutor));
    }

    private record Prepared(PackagedProgram program, ClassLoaderLease lease) {
    }

    private Prepared prepare(String jarId, ProgramRequest request, JobId jobId) {
        try {
            Path file = jars.file(jarId);
            String name = jars.info(jarId).map(StoredJar::name).orElse(jarId);
            PackagedProgram program = PackagedProgram.of(file, name, request.entryClass());
            Path copy = loaders.jarCopyFor(jobId);
            Files.copy(file, copy, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            return new Prepared(program, loaders.register(jobId, copy));
        } catch (IOException e) {
            throw new UncheckedIOException("Could not read the uploaded jar " + jarId + " (" + e + ")", e);
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
