package io.sluice.cli.client;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.cli.common.ExitCodes;
import io.sluice.graph.JobId;
import java.io.PrintWriter;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code sluice cancel <job>}. */
@Command(name = "cancel",
        mixinStandardHelpOptions = true,
        description = "Cancels a job (in any state, also while INITIALIZING); it ends CANCELED.",
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {" 0:the cancel was accepted", "64:not a job id", "66:no such job",
            "69:the cluster cannot be reached", "77:the cluster refused the token"})
public final class CancelCommand extends ClientCommand {
    @Parameters(index = "0", paramLabel = "JOB", description = "The job id (from 'sluice list').")
    String job;

    @Override
    int run(RestClient client, PrintWriter out) throws ClientException {
        JobId id = jobId(job);
        JsonNode answer = client.postJson("v1/jobs/" + id + "/cancel", java.util.Map.of());
        if (options.json()) {
            out.println(answer.toString());
        } else {
            out.println("Cancelling job " + id + " (now " + answer.path("status").asText("CANCELLING") + ").");
        }
        return ExitCodes.OK;
    }
}
