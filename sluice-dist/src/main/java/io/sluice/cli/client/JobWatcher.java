package io.sluice.cli.client;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.cli.common.ExitCodes;
import io.sluice.config.Durations;
import io.sluice.graph.JobId;
import java.io.PrintWriter;
import java.time.Duration;

/**
 * Follows a job by polling {@code GET /v1/jobs/{id}}: prints a progress line whenever it changes
 * (in JSON mode, each new state as one JSON line) until the job ends or {@code timeout} passes.
 * Returns 0 for FINISHED (or still running at the timeout) and 2 for FAILED or CANCELED.
 */
final class JobWatcher {
    private final RestClient client;
    private final PrintWriter out;
    private final boolean json;
    private final Duration interval;

    JobWatcher(RestClient client, PrintWriter out, boolean json, Duration interval) {
        this.client = client;
        this.out = out;
        this.json = json;
        this.interval = interval;
    }

    int watch(JobId jobId, Duration timeout, RestCall onError) throws ClientException, InterruptedException {
        long deadline = timeout == null ? Long.MAX_VALUE : System.nanoTime() + timeout.toNanos();
        String last = null;
        while (true) {
            JsonNode job;
            try {
                job = client.get("v1/jobs/" + jobId);
            } catch (ClientException e) {
                throw onError.explain(e);
            }
            String line = json ? job.toString() : JobText.progress(job);
            if (!line.equals(last)) {
                out.println(json ? line : "[" + JobText.time(System.currentTimeMillis()) + "] " + line);
                out.flush();
                last = line;
            }
            if (JobText.terminal(job)) {
                return "FINISHED".equals(job.path("status").asText()) ? ExitCodes.OK : ExitCodes.JOB_FAILED;
            }
            if (System.nanoTime() >= deadline) {
                if (!json) {
                    out.println("Stopped watching after " + Durations.describe(timeout) + "; job " + jobId + " is "
                            + job.path("status").asText() + " and keeps running on the cluster.");
                }
                return ExitCodes.OK;
            }
            Thread.sleep(interval.toMillis()); // polling interval of a command-line client
        }
    }

    /** Adds context to a failure while watching. */
    @FunctionalInterface
    interface RestCall {
        ClientException explain(ClientException e);
    }
}
