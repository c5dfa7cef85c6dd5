package io.sluice.cli.client;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.cli.common.ExitCodes;
import io.sluice.graph.JobId;
import java.io.PrintWriter;
import java.util.Locale;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code sluice savepoints <job>}: the savepoints the job manager took of a job ({@code GET /v1/jobs/{jobId}/savepoints}). */
@Command(name = "savepoints",
        mixinStandardHelpOptions = true,
        description = "Lists the savepoints the job manager took of a job (running or ended), newest first: id,"
                + " time, size and directory. A job manager that took over after a failover lists only its own.",
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {" 0:shown", "64:not a job id", "69:the cluster cannot be reached",
            "77:the cluster refused the token"})
public final class SavepointsCommand extends ClientCommand {
    @Parameters(index = "0", paramLabel = "JOB", description = "The job id (from 'sluice list').")
    String job;

    @Override
    int run(RestClient client, PrintWriter out) throws ClientException {
        JobId id = jobId(job);
        JsonNode answer = client.get("v1/jobs/" + id + "/savepoints");
        if (options.json()) {
            out.println(answer.toString());
            return ExitCodes.OK;
        }
        JsonNode list = answer.path("savepoints");
        if (list.isEmpty()) {
            out.println("Job " + id + " has no savepoints (taken by this job manager). Take one with 'sluice savepoint "
                    + id + "'.");
            return ExitCodes.OK;
        }
        out.printf("%8s  %-8s  %12s  %s%n", "ID", "TIME", "SIZE", "PATH");
        for (JsonNode s : list) {
            out.printf(Locale.ROOT, "%8d  %-8s  %,12d  %s%n", s.path("id").asLong(),
                    JobText.time(s.path("completionTimestampMillis").asLong()), s.path("sizeBytes").asLong(),
                    s.path("path").asText());
        }
        return ExitCodes.OK;
    }
}
