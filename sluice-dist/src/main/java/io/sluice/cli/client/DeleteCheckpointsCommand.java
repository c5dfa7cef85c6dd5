package io.sluice.cli.client;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.cli.common.ExitCodes;
import io.sluice.graph.JobId;
import java.io.PrintWriter;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code sluice checkpoints delete <job> --yes}: deletes the retained checkpoints of an ended job
 * ({@code DELETE /v1/jobs/{jobId}/checkpoints}). Without {@code --yes} it asks on an interactive
 * console and refuses otherwise, since a deleted checkpoint cannot be restored from.
 */
@Command(name = "delete",
        mixinStandardHelpOptions = true,
        description = "Deletes the retained checkpoints of a job that has ended (FAILED, or CANCELED and kept):"
                + " its HA pointers, then every file in checkpoint storage. The job can then no longer be started"
                + " again from them. Refused while the job runs (cancel it first). Asks for confirmation unless"
                + " --yes is given.",
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {" 0:deleted", "64:not a job id, or not confirmed", "65:refused (the job has not ended, or a"
                + " running job was started from these checkpoints)", "66:no such job",
            "69:the cluster cannot be reached", "77:the cluster refused the token"})
public final class DeleteCheckpointsCommand extends ClientCommand {
    @Parameters(index = "0", paramLabel = "JOB", description = "The id of the ended job (from 'sluice list').")
    String job;

    @Option(names = {"-y", "--yes"}, description = "Delete without asking.")
    boolean yes;

    @Override
    int run(RestClient client, PrintWriter out) throws ClientException {
        JobId id = jobId(job);
        if (!yes && !confirmed(id, out)) {
            throw new ClientException(ExitCodes.USAGE, "Not deleting the checkpoints of job " + id + ": a deleted"
                    + " checkpoint cannot be restored from. Run again with --yes to delete them.");
        }
        JsonNode answer = client.delete("v1/jobs/" + id + "/checkpoints");
        if (options.json()) {
            out.println(answer.toString());
            return ExitCodes.OK;
        }
        JsonNode ids = answer.path("deletedCheckpointIds");
        String where = answer.hasNonNull("location") ? " from " + answer.path("location").asText()
                : " (its result names no checkpoint location: only its HA pointers were removed)";
        out.println(ids.isEmpty() ? "Job " + id + " has no checkpoints left" + where + "."
                : "Deleted " + ids.size() + " checkpoint(s) of job " + id + where + ": " + ids + ".");
        return ExitCodes.OK;
    }

    /** Asks on the console; false when there is none (a script, a pipe) or the answer is not yes. */
    private static boolean confirmed(JobId id, PrintWriter out) {
        java.io.Console console = System.console();
        if (console == null) {
            return false;
        }
        out.flush();
        String answer = console.readLine("Delete the retained checkpoints of job %s? They cannot be restored"
                + " from afterwards. [y/N] ", id);
        return answer != null && (answer.trim().equalsIgnoreCase("y") || answer.trim().equalsIgnoreCase("yes"));
    }
}
