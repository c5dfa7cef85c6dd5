package io.sluice.cli.taskmanager;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sluice.cli.common.ExitCodes;
import io.sluice.cli.cluster.ConfigurationOptions;
import io.sluice.cli.cluster.UntilStopped;
import io.sluice.cluster.process.TaskManagerProcess;
import io.sluice.config.Configuration;
import io.sluice.config.HighAvailabilityOptions;
import io.sluice.config.IllegalConfigurationException;
import io.sluice.config.TaskManagerOptions;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code sluice taskmanager --slots N}: a task manager (task executor) that registers its slots with
 * whichever job manager leads the cluster, and registers again with the next one after a failover,
 * until SIGTERM or Ctrl-C.
 *
 * <p>Threading: {@link #call()} runs on the command's thread and waits there for a stop signal.
 */
@Command(name = "taskmanager",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        description = {
            "Starts a task manager of a Sluice cluster: it finds the leading job manager through the HA services"
                + " (ZooKeeper: high-availability.zookeeper.quorum and high-availability.cluster-id), registers its"
                + " slots there, and runs the tasks it is given.",
            "Runs until SIGTERM or Ctrl-C: its tasks are then cancelled (their jobs restart elsewhere)."},
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {
            " 0:stopped by SIGTERM or Ctrl-C",
            "64:invalid option or configuration value",
            "70:unexpected error"})
public final class TaskManagerCommand implements Callable<Integer> {
    @Spec
    private CommandSpec spec;

    @Mixin
    private ConfigurationOptions configurationOptions;

    @Option(names = "--slots", paramLabel = "N",
            description = "Task slots this task manager offers. Default: taskmanager.slots, else 1.")
    private Integer slots;

    @Override
    public Integer call() throws Exception {
        Configuration configuration = configurationOptions.load(spec);
        if (slots != null) {
            if (slots < 1) {
                throw new ParameterException(spec.commandLine(), "Invalid value for option '--slots': " + slots
                        + "; it must be at least 1.");
            }
            configuration.set(TaskManagerOptions.SLOTS, slots);
        }
        PrintWriter out = spec.commandLine().getOut();
        TaskManagerProcess taskManager;
        try {
            configuration.validateAll();
            taskManager = TaskManagerProcess.start(configuration, configuration.get(TaskManagerOptions.SLOTS),
                    new SimpleMeterRegistry());
        } catch (IllegalConfigurationException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
        UntilStopped untilStopped = UntilStopped.install("taskmanager", taskManager::close);
        out.printf("Sluice task manager %s: %d slot(s); high availability: %s%n", taskManager.id(),
                configuration.get(TaskManagerOptions.SLOTS), configuration.get(HighAvailabilityOptions.TYPE));
        out.println("Stop with Ctrl-C or SIGTERM: its tasks are cancelled and their jobs restart on other task managers.");
        out.flush();
        untilStopped.awaitStopSignalThenStop(out, "Stopping: cancelling the tasks of this task manager.",
                "Sluice task manager stopped.");
        return ExitCodes.OK;
    }
}
