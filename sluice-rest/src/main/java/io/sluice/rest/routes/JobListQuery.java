package io.sluice.rest.routes;

import io.sluice.job.JobStatus;
import io.sluice.protocol.JobSummary;
import io.sluice.rest.RestException;
import io.sluice.rest.model.JobListView;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The request of {@code GET /v1/jobs}: which jobs (by status, part of the name, and marks), how many
 * per page, and where the page starts. {@link #parse} reads it from the query parameters and answers
 * every invalid value with a 400 that says what is accepted; {@link #answer} applies it to the
 * Dispatcher's listing; {@link #withPageToken} and {@link #path} write the link of the next page.
 * Immutable; any thread.
 *
 * @param statuses     only jobs in one of these statuses; empty for all
 * @param nameContains only jobs whose name contains this (any case), or {@code null} for all
 * @param marks        only jobs with at least one of these marks; empty for all
 * @param limit        at most this many jobs on the page, 1 to {@link #MAX_LIMIT}
 * @param pageToken    the page starts after this position, or {@code null} for the first page
 */
public record JobListQuery(Set<JobStatus> statuses, String nameContains, Set<Mark> marks, int limit,
                           JobPageToken pageToken) {
    /**
     * The most jobs one answer holds, and the page size when the request names none: a cluster with up
     * to this many jobs answers a plain {@code GET /v1/jobs} with all of them, as before paging (the
     * answer of a thousand jobs is some 250 KB of JSON); beyond it, the client follows {@code next}.
     */
    public static final int MAX_LIMIT = 1000;
    /** The longest {@code name} filter; job names are short, and the text is echoed in errors and links. */
    public static final int MAX_NAME_LENGTH = 200;
    /** The query parameters of {@code GET /v1/jobs}. */
    public static final List<String> PARAMETERS = List.of("status", "name", "mark", "limit", "pageToken");

    /** A mark of a job that its status does not show; named as the field of the list item that carries it. */
    public enum Mark {
        CRASH_LOOP("crashLoop"),
        CHECKPOINTS_STALE("checkpointsStale");

        private final String parameter;

        Mark(String parameter) {
            this.parameter = parameter;
        }

        public String parameter() {
            return parameter;
        }

        boolean on(JobListView.Item item) {
            return switch (this) {
                case CRASH_LOOP -> item.crashLoop() != null;
                case CHECKPOINTS_STALE -> item.checkpointsStale() != null;
            };
        }
    }

    public JobListQuery {
        statuses = statuses.isEmpty() ? Set.of() : Set.copyOf(EnumSet.copyOf(statuses));
        marks = marks.isEmpty() ? Set.of() : Set.copyOf(EnumSet.copyOf(marks));
        if (limit < 1 || limit > MAX_LIMIT) {
            throw new IllegalArgumentException("limit " + limit + " is not within 1.." + MAX_LIMIT);
        }
    }

    /** Every job, first page, the default page size. */
    public static JobListQuery all() {
        return new JobListQuery(Set.of(), null, Set.of(), MAX_LIMIT, null);
    }

    /**
     * The query of {@code params} (names to values, as decoded from the URL). Unknown names are refused
     * by the router; here: a {@code status} or {@code mark} may be given several times and lists values
     * separated by commas, the others at most once.
     *
     * @throws RestException 400 for any invalid value, saying which and what is accepted
     */
    public static JobListQuery parse(Map<String, List<String>> params) {
        Set<JobStatus> statuses = EnumSet.noneOf(JobStatus.class);
        for (String value : commaSeparated(params, "status")) {
            statuses.add(status(value));
        }
        Set<Mark> marks = EnumSet.noneOf(Mark.class);
        for (String value : commaSeparated(params, "mark")) {
            marks.add(mark(value));
        }
        String name = single(params, "name");
        if (name != null && (name.isEmpty() || name.length() > MAX_NAME_LENGTH)) {
            throw RestException.badRequest("?name= takes 1 to " + MAX_NAME_LENGTH + " characters (a part of the job name,"
                    + " any case), not " + name.length());
        }
        String limit = single(params, "limit");
        String token = single(params, "pageToken");
        return new JobListQuery(statuses, name, marks, limit == null ? MAX_LIMIT : limit(limit),
                token == null ? null : JobPageToken.parse(token));
    }

    /** This page of {@code jobs}: the matching jobs in {@link JobListView#ORDER} from the page token on, at most {@link #limit}. */
    public JobListView answer(List<JobSummary> jobs) {
        List<JobListView.Item> matching = JobListView.items(jobs).stream().filter(this::matches).toList();
        int from = 0;
        if (pageToken != null) {
            while (from < matching.size() && !pageToken.precedes(matching.get(from))) {
                from++;
            }
        }
        int to = Math.min(matching.size(), from + limit);
        List<JobListView.Item> page = matching.subList(from, to);
        if (to == matching.size()) {
            return new JobListView(page, matching.size(), null, null);
        }
        JobPageToken next = JobPageToken.after(page.get(page.size() - 1));
        return new JobListView(page, matching.size(), next.toString(), withPageToken(next).path());
    }

    /** Whether {@code item} passes every filter. */
    public boolean matches(JobListView.Item item) {
        if (!statuses.isEmpty() && statuses.stream().noneMatch(s -> s.name().equals(item.status()))) {
            return false;
        }
        if (nameContains != null && (item.name() == null
                || !item.name().toLowerCase(Locale.ROOT).contains(nameContains.toLowerCase(Locale.ROOT)))) {
            return false;
        }
        return marks.isEmpty() || marks.stream().anyMatch(m -> m.on(item));
    }

    /** The same filters and limit, from {@code token} on. */
    public JobListQuery withPageToken(JobPageToken token) {
        return new JobListQuery(statuses, nameContains, marks, limit, token);
    }

    /** This query as the path and query string of {@code GET /v1/jobs}, values URL-encoded, in a fixed order. */
    public String path() {
        List<String> query = new ArrayList<>();
        if (!statuses.isEmpty()) {
            query.add("status=" + EnumSet.copyOf(statuses).stream().map(Enum::name).collect(Collectors.joining(",")));
        }
        if (nameContains != null) {
            query.add("name=" + URLEncoder.encode(nameContains, StandardCharsets.UTF_8).replace("+", "%20"));
        }
        if (!marks.isEmpty()) {
            query.add("mark=" + EnumSet.copyOf(marks).stream().map(Mark::parameter).collect(Collectors.joining(",")));
        }
        query.add("limit=" + limit);
        if (pageToken != null) {
            query.add("pageToken=" + pageToken);
        }
        return "/v1/jobs?" + String.join("&", query);
    }

    private static List<String> commaSeparated(Map<String, List<String>> params, String name) {
        List<String> out = new ArrayList<>();
        for (String value : params.getOrDefault(name, List.of())) {
            for (String part : value.split(",", -1)) {
                String trimmed = part.trim();
                if (trimmed.isEmpty()) {
                    throw RestException.badRequest("?" + name + "= has an empty value in '" + JobRoutes.printable(value)
                            + "'; list values separated by single commas");
                }
                out.add(trimmed);
            }
        }
        return out;
    }

    private static String single(Map<String, List<String>> params, String name) {
        List<String> values = params.getOrDefault(name, List.of());
        if (values.size() > 1) {
            throw RestException.badRequest("?" + name + "= is given " + values.size() + " times; give it once");
        }
        return values.isEmpty() ? null : values.get(0);
    }

    private static JobStatus status(String raw) {
        try {
            return JobStatus.valueOf(raw.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw RestException.badRequest("Unknown job status '" + JobRoutes.printable(raw) + "' in ?status=; use one or"
                    + " more of " + Arrays.toString(JobStatus.values()) + ", separated by commas");
        }
    }

    private static Mark mark(String raw) {
        for (Mark m : Mark.values()) {
            if (m.parameter.equalsIgnoreCase(raw)) {
                return m;
            }
        }
        throw RestException.badRequest("Unknown mark '" + JobRoutes.printable(raw) + "' in ?mark=; use crashLoop,"
                + " checkpointsStale, or both separated by a comma (jobs with either)");
    }

    private static int limit(String raw) {
        int value = raw.matches("[0-9]{1,4}") ? Integer.parseInt(raw) : -1;
        if (value < 1 || value > MAX_LIMIT) {
            throw RestException.badRequest("?limit= takes a whole number of jobs per page from 1 to " + MAX_LIMIT + ", not '"
                    + JobRoutes.printable(raw) + "'");
        }
        return value;
    }
}
