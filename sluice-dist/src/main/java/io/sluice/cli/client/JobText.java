package io.sluice.cli.client;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.config.Durations;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/** Turns the REST API's job JSON ({@code GET /v1/jobs/{id}}) into the lines the CLI prints. Stateless. */
final class JobText {
    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("HH:mm:ss").withZone(ZoneId.systemDefault());
    private static final Set<String> TERMINAL = Set.of("FINISHED", "FAILED", "CANCELED");

    private JobText() {}

    static boolean terminal(JsonNode job) {
        return TERMINAL.contains(job.path("status").asText());
    }

    static String time(long epochMillis) {
        return epochMillis <= 0 ? "-" : TIME.format(Instant.ofEpochMilli(epochMillis));
    }

    /**
     * One line of progress, e.g. {@code RUNNING  records out 12,345  checkpoints 5 ok, 0 failed  restarts 0},
     * or while INITIALIZING {@code INITIALIZING  phase 'reading checkpoint metadata', attempt 4, last error:
     * Connection refused, next retry in 3.2 s}.
     */
    static String progress(JsonNode job) {
        String status = job.path("status").asText();
        StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "%-12s", status));
        JsonNode recovery = job.path("recovery");
        if ("INITIALIZING".equals(status) && recovery.isObject()) {
            line.append("  ").append(recovery(recovery));
            return line.toString();
        }
        // The sources are the vertices the job manager marks "source". Their names are the user's (a file's
        // name, "numbers"), so a "Source" prefix missed most of them; and a source counts the records its
        // readers emitted as its records in, so "reads nothing" (the rule before the mark) found none once
        // they had read anything, and the line said "source records out 0" all along. A job manager without
        // the mark: the vertices that read nothing.
        boolean marked = false;
        for (JsonNode v : job.path("vertices")) {
            marked |= v.has("source");
        }
        long out = 0;
        for (JsonNode v : job.path("vertices")) {
            if (marked ? v.path("source").asBoolean() : v.path("recordsIn").asLong() == 0) {
                out += v.path("recordsOut").asLong();
            }
        }
        JsonNode cp = job.path("checkpoints");
        line.append(String.format(Locale.ROOT, "  source records out %,d  checkpoints %d ok, %d failed  restarts %d",
                out, cp.path("completed").asLong(), cp.path("failed").asLong(), job.path("restarts").path("count").asInt()));
        if (job.path("failure").isObject()) {
            line.append("  failure: ").append(job.path("failure").path("message").asText());
        }
        return line.toString();
    }

    /** The recovery progress in words: phase, attempt, last error, next retry. */
    static String recovery(JsonNode r) {
        List<String> parts = new ArrayList<>();
        parts.add("phase '" + r.path("phase").asText() + "'");
        parts.add("attempt " + r.path("attempt").asInt());
        if (r.hasNonNull("lastError") && !r.path("lastError").asText().isEmpty()) {
            parts.add("last error: " + r.path("lastError").asText());
        }
        long next = r.path("nextRetryMillis").asLong();
        if (next > 0) {
            parts.add("next retry in " + Durations.describe(Duration.ofMillis(next)));
        }
        parts.add(Durations.describe(Duration.ofMillis(r.path("elapsedMillis").asLong())) + " so far");
        return String.join(", ", parts);
    }

    /**
     * The marks of a job from the REST answer (a job-list item or the job detail): "crash loop: the
     * same error N times since T: ..." and "no checkpoint since T"; empty when neither applies.
     */
    static List<String> marks(JsonNode job) {
        List<String> marks = new ArrayList<>(2);
        if (job.path("crashLoop").isObject()) {
            marks.add(job.path("crashLoop").path("summary").asText());
        }
        if (job.path("checkpointsStale").isObject()) {
            marks.add(job.path("checkpointsStale").path("summary").asText());
        }
        return marks;
    }

    /** The full status of a job, several lines. */
    static List<String> details(JsonNode job) {
        List<String> lines = new ArrayList<>();
        lines.add("Job " + job.path("id").asText() + (job.hasNonNull("name") ? " '" + job.path("name").asText() + "'" : ""));
        JsonNode transitions = job.path("transitions");
        long since = transitions.size() > 0 ? transitions.get(transitions.size() - 1).path("timestampMillis").asLong() : 0;
        lines.add("  status       " + job.path("status").asText() + " since " + time(since));
        if ("INITIALIZING".equals(job.path("status").asText()) && job.path("recovery").isObject()) {
            lines.add("  recovery     " + recovery(job.path("recovery")));
            for (JsonNode e : job.path("recovery").path("events")) {
                lines.add("               " + e.asText());
            }
        }
        for (JsonNode v : job.path("vertices")) {
            lines.add(String.format(Locale.ROOT, "  vertex %-3d   %s  x%d (%d running)  in %,d  out %,d", v.path("id").asInt(),
                    v.path("name").asText(), v.path("parallelism").asInt(), v.path("runningSubtasks").asInt(),
                    v.path("recordsIn").asLong(), v.path("recordsOut").asLong()));
        }
        JsonNode cp = job.path("checkpoints");
        lines.add(String.format(Locale.ROOT, "  checkpoints  %d completed, %d failed, latest %s%s", cp.path("completed").asLong(),
                cp.path("failed").asLong(), cp.path("latestId").asLong() < 0 ? "none" : cp.path("latestId").asText(),
                cp.hasNonNull("lastFailure") ? ", last failure: " + cp.path("lastFailure").asText() : ""));
        lines.add("  restarts     " + job.path("restarts").path("count").asInt());
        if (job.path("failure").isObject()) {
            lines.add("  failure      " + job.path("failure").path("message").asText());
        }
        for (String mark : marks(job)) {
            lines.add("  WARNING      " + mark);
        }
        if (job.path("crashLoop").isObject()) {
            lines.add("  what to do   " + job.path("crashLoop").path("advice").asText());
        }
        return lines;
    }
}
