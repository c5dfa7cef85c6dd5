package io.sluice.jar;

import io.sluice.config.Configuration;
import io.sluice.config.PipelineOptions;
import io.sluice.protocol.DispatcherGateway;
import io.sluice.graph.JobGraph;
import io.sluice.graph.JobId;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
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
    /** The cluster configuration's job settings (checkpoints, restarts, pipeline), under each request's own. */
    private final Map<String, String> jobDefaults;

    /** The option classes whose keys are job settings a cluster configuration gives every job from a jar. */
    static final List<Class<?>> JOB_OPTION_CLASSES = List.of(io.sluice.config.PipelineOptions.class,
            io.sluice.config.CheckpointingOptions.class, io.sluice.config.RestartOptions.class);

    /** A submitter whose jobs get only their request's settings (and the program's own). */
    public JarJobSubmitter(UserCodeClassLoaders loaders, Supplier<JobJarStore> jobJars,
                           Supplier<DispatcherGateway> dispatcher, Executor ioExecutor, Duration mainTimeout) {
        this(loaders, jobJars, dispatcher, ioExecutor, mainTimeout, new Configuration());
    }

    /**
     * @param clusterConfiguration the cluster's configuration: its job settings ({@code checkpoints.*},
     *                             {@code restart-strategy*}, {@code pipeline.*} and the other keys of
     *                             {@link #JOB_OPTION_CLASSES}) are every job's defaults; a request's
     *                             {@code -D} entries override them, and the program's own calls
     *                             (e.g. {@code enableCheckpointing}) override both
     */
    public JarJobSubmitter(UserCodeClassLoaders loaders, Supplier<JobJarStore> jobJars,
                           Supplier<DispatcherGateway> dispatcher, Executor ioExecutor, Duration mainTimeout,
                           Configuration clusterConfiguration) {
        this.loaders = loaders;
        this.jobJars = jobJars;
        this.dispatcher = dispatcher;
        this.ioExecutor = ioExecutor;
        this.mainTimeout = mainTimeout;
        this.jobDefaults = jobSettingsOf(clusterConfiguration);
    }

    static Map<String, String> jobSettingsOf(Configuration configuration) {
        java.util.Set<String> jobKeys = new java.util.HashSet<>();
        for (Class<?> options : JOB_OPTION_CLASSES) {
            io.sluice.config.ConfigOptions.declaredIn(options).forEach(o -> jobKeys.add(o.key()));
        }
        Map<String, String> out = new java.util.TreeMap<>();
        configuration.toMap().forEach((key, value) -> {
            if (jobKeys.contains(key) || key.startsWith("restart-strategy.")) {
                out.put(key, value);
            }
        });
        return Map.copyOf(out);
    }

    /**
     * Runs the program of {@code jar} (named {@code jarName} in messages and logs); completes with the
     * job id once the dispatcher accepted the job. Fails with {@link JarException} (no entry class,
     * {@code main} failed) or the dispatcher's {@link io.sluice.protocol.JobSubmissionException}.
     * {@code jar} is copied before the future completes, so the caller may delete it afterwards.
     */
    public CompletableFuture<JobId> run(Path jar, String jarName, ProgramRequest request) {
        JobId jobId = JobId.generate();
        return CompletableFuture.supplyAsync(() -> prepare(jar, jarName, request, jobId), ioExecutor)
                .thenCompose(prepared -> prepared.program().captureJobGraph(prepared.lease().classLoader(),
                                request.args(), new Configuration(jobDefaults), runConfiguration(request), jobId,
                                mainTimeout)
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
