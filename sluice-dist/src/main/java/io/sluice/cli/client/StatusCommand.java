package io.sluice.cli.client;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.cli.common.DurationConverter;
import io.sluice.cli.common.ExitCodes;
import io.sluice.graph.JobId;
import java.io.PrintWriter;
import java.time.Duration;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code sluice status <job> [--watch]}: a job's status, and while INITIALIZING its recovery progress. */
@Command(name = "status",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        description = {
            "Shows a job's status: since when, its vertices with parallelism and record counts, checkpoints,"
                + " restarts, the failure; while INITIALIZING the recovery progress (phase, attempt, last error,"
                + " next retry).",
            "--watch prints a line whenever that changes, until the job ends (or --timeout)."},
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {
            " 0:status shown; with --watch: the job FINISHED, or --timeout passed",
            " 2:with --watch: the job ended FAILED or CANCELED",
            "64:invalid command line (e.g. not a job id)",
            "66:no such job",
            "69:the cluster cannot be reached",
            "77:the cluster refused the token"})
public final class StatusCommand extends ClientCommand {
    @Parameters(index = "0", paramLabel = "JOB", description = "The job id (from 'sluice list').")
    String job;

    @Option(names = "--watch", description = "Follow the job until it ends.")
    boolean watch;

    @Option(names = "--interval", paramLabel = "DURATION", defaultValue = "1 s", converter = DurationConverter.class,
            description = "Time between two looks with --watch. Default: ${DEFAULT-VALUE}.")
    Duration interval;

    @Option(names = "--timeout", paramLabel = "DURATION", converter = DurationConverter.class,
            description = "Stop watching after this long (exit 0). Default: watch until the job ends.")
    Duration timeout;

    @Override
    int run(RestClient client, PrintWriter out) throws ClientException, InterruptedException {
        JobId id = jobId(job);
        if (watch) {
            return new JobWatcher(client, out, options.json(), interval).watch(id, timeout, e -> e);
        }
        JsonNode details = client.get("v1/jobs/" + id);
        if (options.json()) {
            out.println(details.toString());
        } else {
            JobText.details(details).forEach(out::println);
        }
        return ExitCodes.OK;
    }
}
