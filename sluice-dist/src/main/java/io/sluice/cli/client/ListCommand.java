package io.sluice.cli.client;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sluice.cli.common.ExitCodes;
import java.io.PrintWriter;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/**
 * {@code sluice list}: the cluster's jobs, newest first, one page of {@code GET /v1/jobs} or (with
 * {@code --all}) every page, filtered by the server. Runs on the command's thread; one request per page.
 */
@Command(name = "list",
        mixinStandardHelpOptions = true,
        description = {"Lists the cluster's jobs, running and ended, newest first: id, status, start time, name; under a"
                + " job in a crash loop (the same error on consecutive attempts) or without a checkpoint for longer than"
                + " checkpoints.stale-after, a line that says so.",
                "Filters run on the cluster. Without --all it prints one page (at most --limit jobs) and, when more"
                        + " match, how to see the rest."},
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {" 0:listed", "64:an option out of range", "65:the cluster refused a filter value",
                "69:the cluster cannot be reached", "77:the cluster refused the token"})
public final class ListCommand extends ClientCommand {
    /** The most jobs the cluster answers per request (GET /v1/jobs?limit=). */
    static final int MAX_PAGE = 1000;

    @Option(names = "--status", paramLabel = "STATUS", split = ",",
            description = "Only jobs in one of these statuses (any case), e.g. RUNNING,RESTARTING; repeatable.")
    List<String> statuses = new ArrayList<>();

    @Option(names = "--name", paramLabel = "TEXT", description = "Only jobs whose name contains TEXT, in any case.")
    String name;

    @Option(names = "--mark", paramLabel = "MARK", split = ",",
            description = "Only jobs with one of these marks: crashLoop, checkpointsStale.")
    List<String> marks = new ArrayList<>();

    @Option(names = "--limit", paramLabel = "N", defaultValue = "1000",
            description = "Jobs per page, 1 to " + MAX_PAGE + " (with --all, per request). Default: ${DEFAULT-VALUE}.")
    int limit;

    @Option(names = "--all", description = "Follow the pages until every matching job is listed.")
    boolean all;

    @Option(names = "--page-token", paramLabel = "TOKEN",
            description = "Start after the previous page (the token its last line names).")
    String pageToken;

    @Override
    int run(RestClient client, PrintWriter out) throws ClientException {
        if (limit < 1 || limit > MAX_PAGE) {
            throw new ParameterException(spec.commandLine(), "--limit takes 1 to " + MAX_PAGE + " (jobs per page), not "
                    + limit);
        }
        JsonNode page = client.get(path(pageToken));
        if (all) {
            page = allPages(client, page);
        }
        if (options.json()) {
            out.println(page.toString());
            return ExitCodes.OK;
        }
        JsonNode jobs = page.path("jobs");
        if (jobs.isEmpty()) {
            out.println(filtered() || pageToken != null ? "No job matches." : "No jobs. Submit one with: sluice run <jar>");
            return ExitCodes.OK;
        }
        out.printf("%-32s  %-12s  %-8s  %s%n", "JOB", "STATUS", "STARTED", "NAME");
        for (JsonNode j : jobs) {
            out.printf("%-32s  %-12s  %-8s  %s%n", j.path("id").asText(), j.path("status").asText(),
                    JobText.time(j.path("startTimeMillis").asLong()), j.path("name").asText(""));
            for (String mark : JobText.marks(j)) {
                out.printf("  ! %s%n", mark);
            }
        }
        if (page.hasNonNull("nextPageToken")) {
            out.printf("%d of %d matching jobs shown. Next page: --page-token %s (or --all for every page)%n", jobs.size(),
                    page.path("total").asInt(), page.path("nextPageToken").asText());
        }
        return ExitCodes.OK;
    }

    /**
     * Every page from {@code first} on, as one answer of the same shape (its {@code total} from the last
     * page). Each job once: pages follow the server's token, a position in its newest-first order.
     */
    private JsonNode allPages(RestClient client, JsonNode first) throws ClientException {
        ObjectNode merged = RestClient.json().createObjectNode();
        ArrayNode jobs = merged.putArray("jobs");
        JsonNode page = first;
        while (true) {
            page.path("jobs").forEach(jobs::add);
            if (!page.hasNonNull("nextPageToken")) {
                break;
            }
            page = client.get(path(page.get("nextPageToken").asText()));
        }
        merged.put("total", page.path("total").asInt(jobs.size()));
        merged.putNull("nextPageToken");
        merged.putNull("next");
        return merged;
    }

    private boolean filtered() {
        return !statuses.isEmpty() || name != null || !marks.isEmpty();
    }

    /** {@code v1/jobs?...} relative to the cluster address (so a path prefix of --cluster is kept). */
    private String path(String token) {
        List<String> query = new ArrayList<>();
        if (!statuses.isEmpty()) {
            query.add("status=" + encode(String.join(",", statuses)));
        }
        if (name != null) {
            query.add("name=" + encode(name));
        }
        if (!marks.isEmpty()) {
            query.add("mark=" + encode(String.join(",", marks)));
        }
        query.add("limit=" + limit);
        if (token != null) {
            query.add("pageToken=" + encode(token));
        }
        return "v1/jobs?" + String.join("&", query);
    }

    private static String encode(String value) {
        return URLEncoder.encode(value, StandardCharsets.UTF_8).replace("+", "%20");
    }
}
