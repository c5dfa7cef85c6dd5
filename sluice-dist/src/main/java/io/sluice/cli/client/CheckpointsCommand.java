package io.sluice.cli.client;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.cli.common.ExitCodes;
import io.sluice.graph.JobId;
import java.io.PrintWriter;
import java.util.Locale;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/**
 * {@code sluice checkpoints <job>}: counters and the history of completed checkpoints;
 * {@code sluice checkpoints delete <job> --yes} deletes an ended job's retained checkpoints.
 */
@Command(name = "checkpoints",
        mixinStandardHelpOptions = true,
        subcommands = DeleteCheckpointsCommand.class,
        description = "Shows a job's checkpoints: completed and failed counts, the last failure, and the recent"
                + " completed checkpoints (id, trigger time, duration, size, inline or in files, restored from).",
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {" 0:shown", "64:not a job id", "66:no such job", "69:the cluster cannot be reached",
            "77:the cluster refused the token"})
public final class CheckpointsCommand extends ClientCommand {
    @Parameters(index = "0", arity = "0..1", paramLabel = "JOB", description = "The job id (from 'sluice list').")
    String job;

    @Override
    int run(RestClient client, PrintWriter out) throws ClientException {
        if (job == null) {
            throw new picocli.CommandLine.ParameterException(spec.commandLine(), "Missing the job id: sluice checkpoints"
                    + " <job> shows a job's checkpoints, sluice checkpoints delete <job> --yes deletes an ended job's");
        }
        JobId id = jobId(job);
        JsonNode cp = client.get("v1/jobs/" + id + "/checkpoints");
        if (options.json()) {
            out.println(cp.toString());
            return ExitCodes.OK;
        }
        out.printf(Locale.ROOT, "Job %s: %d checkpoint(s) completed, %d failed%s%n", id, cp.path("completed").asLong(),
                cp.path("failed").asLong(), cp.hasNonNull("lastFailure") ? "; last failure: " + cp.path("lastFailure").asText() : "");
        if (cp.hasNonNull("restoredId")) {
            out.println("The running deployment restored from checkpoint " + cp.path("restoredId").asText() + ".");
        }
        if (cp.path("history").isEmpty()) {
            return ExitCodes.OK;
        }
        out.printf("%8s  %-8s  %10s  %12s  %-6s  %s%n", "ID", "TRIGGER", "DURATION", "SIZE", "STATE", "RESTORED");
        for (JsonNode c : cp.path("history")) {
            out.printf(Locale.ROOT, "%8d  %-8s  %7.0f ms  %,12d  %-6s  %s%n", c.path("id").asLong(),
                    JobText.time(c.path("triggerTimestampMillis").asLong()), c.path("durationMillis").asDouble(),
                    c.path("sizeBytes").asLong(), c.path("inline").asBoolean() ? "inline" : "files",
                    c.path("restored").asBoolean() ? "yes" : "");
        }
        return ExitCodes.OK;
    }
}
