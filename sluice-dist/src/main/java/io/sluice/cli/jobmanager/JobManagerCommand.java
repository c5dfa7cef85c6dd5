package io.sluice.cli.jobmanager;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.sluice.cli.common.ExitCodes;
import io.sluice.cli.cluster.ClusterRestServer;
import io.sluice.cli.cluster.ClusterJarRunner;
import io.sluice.cli.cluster.ConfigurationOptions;
import io.sluice.cli.cluster.RestPortOption;
import io.sluice.cli.cluster.UntilStopped;
import io.sluice.cluster.process.JobManagerProcess;
import io.sluice.concurrent.DaemonThreadFactory;
import io.sluice.config.Configuration;
import io.sluice.config.HighAvailabilityOptions;
import io.sluice.config.IllegalConfigurationException;
import io.sluice.config.JobManagerOptions;
import io.sluice.protocol.DispatcherGateway;
import io.sluice.jar.JarJobSubmitter;
import io.sluice.rest.server.RestServer;
import io.sluice.rest.RestServerConfig;
import io.sluice.rest.gateway.DispatcherRestBackend;
import io.sluice.rest.gateway.JobManagerProcessView;
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
 * {@code sluice jobmanager}: one job manager of a cluster (Dispatcher, job manager runners, the
 * registry of task managers, slots), its RPC server and the REST API with {@code /metrics} and the
 * dashboard, until SIGTERM or Ctrl-C. Any number may run: one leads (through the HA services), the
 * others are standbys whose REST API forwards job questions to the leader.
 *
 * <p>Threading: {@link #call()} runs on the command's thread and waits there for a stop signal.
 */
@Command(name = "jobmanager",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        description = {
            "Starts a job manager of a Sluice cluster: it leads through the HA services (ZooKeeper for job managers on"
                + " several hosts) or stands by, serves RPC on jobmanager.rpc.host:jobmanager.rpc.port for task managers,"
                + " and the REST API (and dashboard) on http://127.0.0.1:8081/ by default.",
            "Runs until SIGTERM or Ctrl-C: the jobs it runs are then suspended and the HA data kept, so a standby or"
                + " the next job manager takes them over from their checkpoints."},
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {
            " 0:stopped by SIGTERM or Ctrl-C (jobs suspended, HA data kept)",
            "64:invalid option or configuration value",
            "69:the HA services (ZooKeeper) cannot be reached",
            "78:a setting every job manager of the cluster must share (high-availability.storage-dir) differs from the"
                + " leading job manager's",
            "70:unexpected error"})
public final class JobManagerCommand implements Callable<Integer> {
    @Spec
    private CommandSpec spec;

    @Mixin
    private ConfigurationOptions configurationOptions;

    @Mixin
    private RestPortOption restPort;

    @Option(names = "--jar-dir", paramLabel = "DIR", defaultValue = "./sluice-data/jars",
            description = "Where jars uploaded to this job manager are kept. Default: ${DEFAULT-VALUE}.")
    private Path jarDirectory;

    @Override
    public Integer call() throws Exception {
        Configuration configuration = configurationOptions.load(spec);
        restPort.applyTo(configuration, spec);
        PrintWriter out = spec.commandLine().getOut();
        UntilStopped untilStopped;
        try {
            configuration.validateAll();
            RestServerConfig restConfig = RestServerConfig.fromConfiguration(configuration);
            PrometheusMeterRegistry metrics = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
            JobManagerProcessView view = new JobManagerProcessView();
            java.util.concurrent.ExecutorService jarIo = java.util.concurrent.Executors.newCachedThreadPool(
                    DaemonThreadFactory.named("sluice-jar-io"));
            JarRunnerHolder jarRunner = new JarRunnerHolder();
            LocalJarDirectory jars = new LocalJarDirectory(jarDirectory, jarIo, SystemClock.INSTANCE);
            jars.loadStored().get(60, java.util.concurrent.TimeUnit.SECONDS); // jars of an earlier run: listed and deletable
            RestServer server = ClusterRestServer.start(restConfig, new DispatcherRestBackend(view, jars, jarRunner,
                            configuration.get(io.sluice.rest.RestOptions.JARS_DELETE_WITH_LAST_JOB)),
                    metrics, "another job manager");
            String url = restConfig.scheme() + "://" + advertisedRestHost(restConfig.bindAddress(), configuration) + ":" + server.port();
            JobManagerProcess jobManager;
            try {
                jobManager = JobManagerProcess.start(configuration, url, metrics);
            } catch (Exception | Error e) {
                server.close();
                throw e;
            }
            view.attach(jobManager);
            JobManagerProcess started = jobManager;
            jarRunner.set(new ClusterJarRunner(new JarJobSubmitter(jobManager.userCodeClassLoaders(),
                    jobManager.haServices()::jobJarStore, () -> leaderOrFail(started), jobManager.ioExecutor(),
                    JarJobSubmitter.DEFAULT_MAIN_TIMEOUT, configuration)));
            untilStopped = UntilStopped.install("jobmanager", () -> {
                server.close();
                started.close();
            });
            String listen = restConfig.scheme() + "://" + restConfig.bindAddress() + ":" + server.port() + "/";
            out.printf("Sluice job manager %s; high availability: %s%n", jobManager.id(),
                    configuration.get(HighAvailabilityOptions.TYPE));
            out.println("Advertised as " + jobManager.contenderId());
            out.println("Listening on " + listen + " (REST API under " + listen + "v1, dashboard at " + listen + ")");
            out.println("Stop with Ctrl-C or SIGTERM: the jobs it runs are suspended and resume on another job manager.");
            out.flush();
        } catch (IllegalConfigurationException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
        untilStopped.awaitStopSignalThenStop(out, "Stopping: suspending the jobs this job manager runs; the HA data stays.",
                "Sluice job manager stopped.");
        return ExitCodes.OK;
    }

    /** The host in the REST URL this job manager advertises: its bind address, or its RPC host when it binds every interface. */
    static String advertisedRestHost(String bindAddress, Configuration configuration) {
        return bindAddress.equals("0.0.0.0") || bindAddress.equals("::") ? configuration.get(JobManagerOptions.RPC_HOST)
                : bindAddress;
    }

    private static DispatcherGateway leaderOrFail(JobManagerProcess jobManager) {
        return jobManager.leaderDispatcher().orElseThrow(() -> new IllegalStateException("No job manager leads the"
                + " cluster right now (job manager " + jobManager.id() + " is a standby); retry in a moment"));
    }
}
