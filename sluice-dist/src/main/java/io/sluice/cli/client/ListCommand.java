package io.sluice.cli.client;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.cli.common.ExitCodes;
import java.io.PrintWriter;
import picocli.CommandLine.Command;

/** {@code sluice list}: the cluster's jobs. */
@Command(name = "list",
        mixinStandardHelpOptions = true,
        description = "Lists the cluster's jobs, running and ended: id, status, start time, name; under a job in a"
                + " crash loop (the same error on consecutive attempts) or without a checkpoint for longer than"
                + " checkpoints.stale-after, a line that says so.",
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {" 0:listed", "69:the cluster cannot be reached", "77:the cluster refused the token"})
public final class ListCommand extends ClientCommand {
    @Override
    int run(RestClient client, PrintWriter out) throws ClientException {
        JsonNode jobs = client.get("v1/jobs");
        if (options.json()) {
            out.println(jobs.toString());
            return ExitCodes.OK;
        }
        if (jobs.path("jobs").isEmpty()) {
            out.println("No jobs. Submit one with: sluice run <jar>");
            return ExitCodes.OK;
        }
        out.printf("%-32s  %-12s  %-8s  %s%n", "JOB", "STATUS", "STARTED", "NAME");
        for (JsonNode j : jobs.path("jobs")) {
            out.printf("%-32s  %-12s  %-8s  %s%n", j.path("id").asText(), j.path("status").asText(),
                    JobText.time(j.path("startTimeMillis").asLong()), j.path("name").asText(""));
            for (String mark : JobText.marks(j)) {
                out.printf("  ! %s%n", mark);
            }
        }
        return ExitCodes.OK;
    }
}
