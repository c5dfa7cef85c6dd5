package io.sluice.cli.client;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.cli.common.DurationConverter;
import io.sluice.cli.common.ExitCodes;
import io.sluice.graph.JobId;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;

/**
 * {@code sluice rescale <job> <parallelism> <jar> [-- args]}: stop with a savepoint ({@code sluice stop --savepoint}),
 * then run the job's jar again from that savepoint at the new parallelism ({@code sluice run --restore-from
 * --parallelism}). The cluster does not keep what a job was run with (jar, entry class, arguments, configuration),
 * so they are given again, as to {@code sluice run}.
 */
@Command(name = "rescale",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        description = {
            "Rescales a running job in one command: stops it with a savepoint (as 'sluice stop --savepoint'), then runs"
                + " its jar from that savepoint at the new parallelism (as 'sluice run --restore-from S --parallelism N')."
                + " Give the jar, --class, -D settings and program arguments the job was run with.",
            "Keyed state is split anew by key groups (up to the job's max parallelism). Operators whose parallelism the"
                + " program sets itself (a source's, for example) keep it."},
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {
            " 0:the job was stopped and runs again at the new parallelism (--detached), or that run FINISHED",
            " 2:the new run was rejected, or ended FAILED or CANCELED (the savepoint stays: run it again by hand)",
            "64:invalid command line",
            "65:the stop was refused or its savepoint failed (the job keeps running)",
            "66:no such job, or the jar file does not exist",
            "69:the cluster cannot be reached",
            "77:the cluster refused the token"})
public final class RescaleCommand extends ClientCommand {
    @Parameters(index = "0", paramLabel = "JOB", description = "The running job (from 'sluice list').")
    String job;

    @Parameters(index = "1", paramLabel = "PARALLELISM", description = "The new default parallelism, at least 1.")
    int parallelism;

    @Parameters(index = "2", paramLabel = "JAR", description = "The job's jar, as given to 'sluice run'.")
    Path jar;

    @Parameters(index = "3..*", paramLabel = "ARGS", description = "Arguments of the program's main (after '--').")
    List<String> args = new ArrayList<>();

    @Option(names = "--class", paramLabel = "CLASS", description = "Entry class. Default: the jar manifest's Main-Class.")
    String entryClass;

    @Option(names = "-D", paramLabel = "KEY=VALUE", mapFallbackValue = "",
            description = "Job configuration over the program's, repeatable, as given to 'sluice run'.")
    Map<String, String> config = new LinkedHashMap<>();

    @Option(names = "--dir", paramLabel = "DIRECTORY",
            description = "Where the savepoint's directory is created. Default: <checkpoints.dir>/savepoints.")
    String dir;

    @Option(names = "--detached", description = "Return once the rescaled job is accepted; do not follow it.")
    boolean detached;

    @Option(names = "--timeout", paramLabel = "DURATION", defaultValue = "10 min", converter = DurationConverter.class,
            description = "How long to wait for the savepoint. Default: ${DEFAULT-VALUE}.")
    Duration timeout;

    @Option(names = "--poll-interval", paramLabel = "DURATION", defaultValue = "500 ms", converter = DurationConverter.class,
            description = "How often an attached run asks for the job's status. Default: ${DEFAULT-VALUE}.")
    Duration pollInterval;

    @Override
    int run(RestClient client, PrintWriter out) throws ClientException, InterruptedException {
        if (parallelism < 1) {
            throw new ParameterException(spec.commandLine(), "The parallelism must be at least 1, not " + parallelism);
        }
        if (config.containsKey(io.sluice.config.CheckpointingOptions.RESTORE_FROM.key())) {
            throw new ParameterException(spec.commandLine(), "sluice rescale restores from the savepoint it takes;"
                    + " do not pass -D " + io.sluice.config.CheckpointingOptions.RESTORE_FROM.key());
        }
        JobId id = jobId(job);
        if (!Files.isRegularFile(jar)) { // checked before the job is stopped
            throw new ClientException(ExitCodes.NOT_FOUND, "There is no jar file " + jar.toAbsolutePath()
                    + "; pass the jar the job was run from. The job was not stopped.");
        }
        JsonNode stopped = client.postJson("v1/jobs/" + id + "/stop", SavepointCommand.body(dir), timeout);
        String savepoint = stopped.path("savepoint").path("path").asText();
        if (!options.json()) {
            out.println(SavepointCommand.describe(stopped.path("savepoint")));
            out.println("Stopped job " + id + "; running " + jar.getFileName() + " from the savepoint at parallelism "
                    + parallelism + ".");
            out.flush();
        }
        RunCommand run = new RunCommand();
        run.spec = spec;
        run.options = options;
        run.jar = jar;
        run.args = args;
        run.entryClass = entryClass;
        run.parallelism = parallelism;
        run.config = config;
        run.restoreFrom = savepoint;
        run.detached = detached;
        run.pollInterval = pollInterval;
        try {
            return run.run(client, out);
        } catch (ClientException e) {
            throw new ClientException(e.exitCode(), e.getMessage() + " (job " + id + " was stopped with savepoint "
                    + savepoint + "; run it again with: sluice run " + jar + " --restore-from " + savepoint
                    + " --parallelism " + parallelism + ")", e);
        }
    }
}
