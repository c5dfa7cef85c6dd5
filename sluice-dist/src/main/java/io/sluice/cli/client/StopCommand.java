package io.sluice.cli.client;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.cli.common.DurationConverter;
import io.sluice.cli.common.ExitCodes;
import io.sluice.graph.JobId;
import java.io.PrintWriter;
import java.time.Duration;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;

/**
 * {@code sluice stop <job> --savepoint [--dir D]}: a savepoint, then the job cancelled, only if the savepoint
 * completed ({@code POST /v1/jobs/{jobId}/stop}).
 */
@Command(name = "stop",
        mixinStandardHelpOptions = true,
        description = "Stops a running job with a savepoint: takes a savepoint (as 'sluice savepoint'), then cancels"
                + " the job, which ends CANCELED. If the savepoint fails the job keeps running and the error says why."
                + " Prints the savepoint's directory, to pass to 'sluice run --restore-from'.",
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {" 0:the savepoint was written and the job is being cancelled", "64:not a job id, or no"
                + " --savepoint", "65:refused or failed (the job does not run, or the savepoint failed: the job keeps"
                + " running)", "66:no such job", "69:the cluster cannot be reached, or did not answer in time",
            "77:the cluster refused the token"})
public final class StopCommand extends ClientCommand {
    @Parameters(index = "0", paramLabel = "JOB", description = "The job id (from 'sluice list').")
    String job;

    @Option(names = "--savepoint", required = false,
            description = "Take a savepoint before stopping (required: a stop always takes one; 'sluice cancel'"
                    + " stops without).")
    boolean savepoint;

    @Option(names = "--dir", paramLabel = "DIRECTORY",
            description = "Where the savepoint's directory is created. Default: <checkpoints.dir>/savepoints.")
    String dir;

    @Option(names = "--timeout", paramLabel = "DURATION", defaultValue = "10 min", converter = DurationConverter.class,
            description = "How long to wait for the savepoint. Default: ${DEFAULT-VALUE}.")
    Duration timeout;

    @Override
    int run(RestClient client, PrintWriter out) throws ClientException {
        if (!savepoint) {
            throw new ParameterException(spec.commandLine(), "sluice stop takes a savepoint first: pass --savepoint"
                    + " (and --dir DIRECTORY to choose where), or stop without one with 'sluice cancel " + job + "'");
        }
        JobId id = jobId(job);
        JsonNode answer = client.postJson("v1/jobs/" + id + "/stop", SavepointCommand.body(dir), timeout);
        if (options.json()) {
            out.println(answer.toString());
            return ExitCodes.OK;
        }
        out.println(SavepointCommand.describe(answer.path("savepoint")));
        out.println("Stopping job " + id + " (now " + answer.path("status").asText("CANCELLING") + "; it ends CANCELED).");
        out.println("Restore with: sluice run <jar> --restore-from " + answer.path("savepoint").path("path").asText());
        return ExitCodes.OK;
    }
}
