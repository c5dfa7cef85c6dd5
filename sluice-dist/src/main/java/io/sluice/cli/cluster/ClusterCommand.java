package io.sluice.cli.cluster;

import io.sluice.cli.common.ExitCodes;
import io.sluice.cluster.LocalCluster;
import io.sluice.config.ClusterOptions;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.sluice.config.Configuration;
import io.sluice.config.HighAvailabilityOptions;
import io.sluice.config.IllegalConfigurationException;
import io.sluice.jar.JarJobSubmitter;
import io.sluice.rest.server.RestServer;
import io.sluice.rest.RestServerConfig;
import io.sluice.rest.local.LocalClusterBackend;
import io.sluice.rest.jars.LocalJarDirectory;
import io.sluice.util.SystemClock;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code sluice cluster}: a job manager and task executors in this process, with the REST API,
 * until SIGTERM or Ctrl-C. Stopping suspends the jobs and keeps the HA data, so the next
 * {@code sluice cluster} on the same HA directory resumes them (with their jars) from their latest
 * checkpoints.
 *
 * <p>Threading: {@link #call()} runs on the command's thread and waits there for a stop signal;
 * the signal handlers only release that wait.
 */
@Command(name = "cluster",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        description = {
            "Starts a Sluice cluster in this process: a job manager and task executors, and the REST API"
                + " (and dashboard) on http://127.0.0.1:8081/ by default. Submit jobs with 'sluice run <jar>'.",
            "Runs until SIGTERM or Ctrl-C: the jobs are then suspended and the HA data kept, so a cluster started"
                + " again on the same HA directory (default ./sluice-data/ha) resumes them from their checkpoints."},
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {
            " 0:stopped by SIGTERM or Ctrl-C (jobs suspended, HA data kept)",
            "64:invalid option or configuration value",
            "70:unexpected error"})
public final class ClusterCommand implements Callable<Integer> {
    @Spec
    private CommandSpec spec;

    @Option(names = "--task-executors", paramLabel = "N",
            description = "Task executors in this process. Default: cluster.task-executors, else 2.")
    private Integer taskExecutors;

    @Option(names = "--slots", paramLabel = "N",
            description = "Slots per task executor. Default: cluster.slots-per-task-executor, else 2.")
    private Integer slots;

    @Mixin
    private RestPortOption restPort;

    @Mixin
    private ConfigurationOptions configurationOptions;

    @Option(names = "--jar-dir", paramLabel = "DIR", defaultValue = "./sluice-data/jars",
            description = "Where uploaded jars are kept. Default: ${DEFAULT-VALUE}.")
    private Path jarDirectory;

    @Override
    public Integer call() throws Exception {
        Configuration configuration = configuration();
        PrintWriter out = spec.commandLine().getOut();
        UntilStopped untilStopped;
        try {
            RestServerConfig restConfig = RestServerConfig.fromConfiguration(configuration);
            PrometheusMeterRegistry metrics = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
            LocalCluster cluster = LocalCluster.builder().configuration(configuration).haServices(configuration)
                    .meterRegistry(metrics).build();
            JarJobSubmitter submitter = new JarJobSubmitter(cluster.userCodeClassLoaders(),
                    cluster.haServices()::jobJarStore, cluster::dispatcher, cluster.ioExecutor(),
                    JarJobSubmitter.DEFAULT_MAIN_TIMEOUT, configuration);
            LocalJarDirectory jars = new LocalJarDirectory(jarDirectory, cluster.ioExecutor(), SystemClock.INSTANCE);
            jars.loadStored().get(60, java.util.concurrent.TimeUnit.SECONDS); // jars of an earlier run: listed and deletable
            RestServer server;
            try {
                server = ClusterRestServer.start(restConfig,
                        new LocalClusterBackend(cluster, jars, new ClusterJarRunner(submitter),
                                configuration.get(io.sluice.rest.RestOptions.JARS_DELETE_WITH_LAST_JOB)), metrics, "another cluster");
            } catch (RuntimeException e) {
                cluster.close();
                throw e;
            }
            // Stops serving, then suspends every job (tasks cancelled, HA data kept).
            untilStopped = UntilStopped.install("cluster", () -> {
                server.close();
                cluster.close();
            });
            String url = restConfig.scheme() + "://" + restConfig.bindAddress() + ":" + server.port() + "/";
            out.printf("Sluice cluster: %d task executor(s) x %d slot(s); high availability: %s%n",
                    cluster.taskExecutors().size(), cluster.taskExecutors().get(0).numberOfSlots(), haDescription(configuration));
            out.println("Listening on " + url + " (REST API under " + url + "v1, dashboard at " + url + ")");
            out.println("Submit a job with: sluice run <jar> --cluster " + url.substring(0, url.length() - 1));
            out.println("Stop with Ctrl-C or SIGTERM: jobs are suspended and resume when the cluster starts again.");
            out.flush();
        } catch (IllegalConfigurationException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
        untilStopped.awaitStopSignalThenStop(out, "Stopping: suspending the jobs; the HA data stays for the next start.",
                "Sluice cluster stopped.");
        return ExitCodes.OK;
    }

    private Configuration configuration() {
        Configuration c = configurationOptions.load(spec);
        if (taskExecutors != null) {
            require(taskExecutors >= 1, "--task-executors", taskExecutors, "at least 1");
            c.set(ClusterOptions.TASK_EXECUTORS, taskExecutors);
        } else if (!c.contains(ClusterOptions.TASK_EXECUTORS)) {
            c.set(ClusterOptions.TASK_EXECUTORS, 2);
        }
        if (slots != null) {
            require(slots >= 1, "--slots", slots, "at least 1");
            c.set(ClusterOptions.SLOTS_PER_TASK_EXECUTOR, slots);
        } else if (!c.contains(ClusterOptions.SLOTS_PER_TASK_EXECUTOR)) {
            c.set(ClusterOptions.SLOTS_PER_TASK_EXECUTOR, 2);
        }
        restPort.applyTo(c, spec);
        return c;
    }

    private static String haDescription(Configuration c) {
        String type = c.get(HighAvailabilityOptions.TYPE);
        return "embedded".equals(type)
                ? "embedded in " + Path.of(c.get(HighAvailabilityOptions.DIRECTORY)).toAbsolutePath().normalize()
                : type;
    }


    private void require(boolean valid, String option, Object value, String requirement) {
        if (!valid) {
            throw new ParameterException(spec.commandLine(),
                    "Invalid value for option '" + option + "': " + value + "; it must be " + requirement + ".");
        }
    }
}
