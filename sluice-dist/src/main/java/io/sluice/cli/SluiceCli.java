package io.sluice.cli;

import io.sluice.cli.client.CancelCommand;
import io.sluice.cli.client.CheckpointsCommand;
import io.sluice.cli.client.JarsCommand;
import io.sluice.cli.client.ListCommand;
import io.sluice.cli.client.RunCommand;
import io.sluice.cli.client.StatusCommand;
import io.sluice.cli.cluster.ClusterCommand;
import io.sluice.cli.common.ExitCodes;
import io.sluice.cli.demo.DemoCommand;
import io.sluice.cli.jobmanager.JobManagerCommand;
import io.sluice.cli.taskmanager.TaskManagerCommand;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.IVersionProvider;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * The {@code sluice} command line: {@code java -jar sluice.jar <command> [options]}, or the
 * {@code ./sluice} launcher at the repository root. Commands are documented in {@code docs/cli.md}.
 */
@Command(name = "sluice",
        mixinStandardHelpOptions = true,
        versionProvider = SluiceCli.ManifestVersion.class,
        description = "Sluice, a stateful stream-processing runtime.",
        subcommands = {DemoCommand.class, ClusterCommand.class, JobManagerCommand.class, TaskManagerCommand.class, RunCommand.class, ListCommand.class,
            StatusCommand.class, CancelCommand.class, io.sluice.cli.client.StopCommand.class,
            io.sluice.cli.client.SavepointCommand.class, io.sluice.cli.client.SavepointsCommand.class,
            io.sluice.cli.client.RescaleCommand.class,
            CheckpointsCommand.class, JarsCommand.class,
            CommandLine.HelpCommand.class},
        commandListHeading = "%nCommands:%n")
public final class SluiceCli implements Runnable {
    @Spec
    private CommandSpec spec;

    public static void main(String[] args) {
        System.exit(commandLine().execute(args));
    }

    /** The configured command line; {@link CommandLine#execute} on it returns one of {@link ExitCodes}. */
    public static CommandLine commandLine() {
        CommandLine cli = new CommandLine(new SluiceCli());
        cli.setExitCodeExceptionMapper(e -> e instanceof ParameterException ? ExitCodes.USAGE : ExitCodes.INTERNAL_ERROR);
        cli.setParameterExceptionHandler(new UsageErrorHandler());
        cli.setExecutionExceptionHandler((e, commandLine, parseResult) -> {
            for (Throwable t = e; t != null; t = t.getCause()) {
                if (t instanceof io.sluice.ha.HaServicesUnavailableException) {
                    // Not a bug of the command: say what could not be reached and what to check, no stack trace.
                    commandLine.getErr().println("sluice " + commandLine.getCommandName() + ": " + t.getMessage());
                    commandLine.getErr().flush();
                    return ExitCodes.UNAVAILABLE;
                }
                if (t instanceof io.sluice.cluster.process.SharedSettingsMismatchException) {
                    // A deployment error, not a bug: one line naming each key and both values, no stack trace.
                    commandLine.getErr().println("sluice " + commandLine.getCommandName() + ": " + t.getMessage());
                    commandLine.getErr().flush();
                    return ExitCodes.CONFIG_MISMATCH;
                }
            }
            throw e;
        });
        return cli;
    }

    /** {@code sluice} without a command. */
    @Override
    public void run() {
        throw new ParameterException(spec.commandLine(), "Missing command: run 'sluice demo' for the exactly-once demo,"
                + " 'sluice cluster' to start a cluster, or 'sluice help' for the list of commands.");
    }

    /** The version recorded in the jar's manifest by the build. */
    static final class ManifestVersion implements IVersionProvider {
        @Override
        public String[] getVersion() {
            String version = SluiceCli.class.getPackage().getImplementationVersion();
            return new String[] {"Sluice " + (version != null ? version : "(development build, not from a jar)")};
        }
    }
}
