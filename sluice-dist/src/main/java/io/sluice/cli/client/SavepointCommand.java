package io.sluice.cli.client;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.cli.common.DurationConverter;
import io.sluice.cli.common.ExitCodes;
import io.sluice.config.Durations;
import io.sluice.graph.JobId;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code sluice savepoint <job> [--dir D]}: takes a savepoint of a running job
 * ({@code POST /v1/jobs/{jobId}/savepoints}) and prints its directory, the value for {@code --restore-from}.
 */
@Command(name = "savepoint",
        mixinStandardHelpOptions = true,
        description = "Takes a savepoint of a running job: its state written self-contained into a new directory"
                + " (restores into either state backend and at another parallelism, from wherever the directory is"
                + " moved; never deleted by checkpoint retention). Prints the directory, to pass to"
                + " 'sluice run --restore-from'. The job keeps running.",
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {" 0:the savepoint was written", "64:not a job id", "65:refused or failed (the job does not"
                + " run, or the savepoint failed; the message says why)", "66:no such job",
            "69:the cluster cannot be reached, or did not answer in time", "77:the cluster refused the token"})
public final class SavepointCommand extends ClientCommand {
    @Parameters(index = "0", paramLabel = "JOB", description = "The job id (from 'sluice list').")
    String job;

    @Option(names = "--dir", paramLabel = "DIRECTORY",
            description = "Where the savepoint's directory is created (a path or file:// or s3:// location the job"
                    + " manager can write). Default: <checkpoints.dir>/savepoints.")
    String dir;

    @Option(names = "--timeout", paramLabel = "DURATION", defaultValue = "10 min", converter = DurationConverter.class,
            description = "How long to wait for the savepoint. Default: ${DEFAULT-VALUE}.")
    Duration timeout;

    @Override
    int run(RestClient client, PrintWriter out) throws ClientException {
        JobId id = jobId(job);
        JsonNode s = client.postJson("v1/jobs/" + id + "/savepoints", body(dir), timeout);
        if (options.json()) {
            out.println(s.toString());
            return ExitCodes.OK;
        }
        out.println(describe(s));
        out.println("Restore with: sluice run <jar> --restore-from " + s.path("path").asText());
        return ExitCodes.OK;
    }

    /** The request body: the directory, if one was given. */
    static Map<String, String> body(String dir) {
        Map<String, String> body = new LinkedHashMap<>();
        if (dir != null) {
            body.put("directory", dir);
        }
        return body;
    }

    /** One line about savepoint {@code s} (a {@code Savepoint} of the REST API). */
    static String describe(JsonNode s) {
        long took = s.path("completionTimestampMillis").asLong() - s.path("triggerTimestampMillis").asLong();
        return String.format(Locale.ROOT, "Savepoint %d of job %s written to %s (%,d bytes, in %s).",
                s.path("id").asLong(), s.path("jobId").asText(), s.path("path").asText(), s.path("sizeBytes").asLong(),
                Durations.describe(Duration.ofMillis(Math.max(0, took))));
    }
}
