package io.sluice.rest.routes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.graph.JobId;
import io.sluice.job.JobStatus;
import io.sluice.protocol.JobHealth;
import io.sluice.protocol.JobSummary;
import io.sluice.rest.RestException;
import io.sluice.rest.model.JobListView;
import io.sluice.restart.CrashLoop;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** Parsing, filtering and paging of {@code GET /v1/jobs} on listings built here (no server). */
class JobListQueryTest {
    private static final CrashLoop LOOP = new CrashLoop(3, 1_000, 2_000, "java.lang.IllegalStateException: boom", null,
            CrashLoop.Kind.PROCESSING, -1, "fix it");
    private static final JobHealth STALE = new JobHealth(null, 500, 30_000);

    private static Map<String, List<String>> params(String... nameValue) {
        Map<String, List<String>> out = new LinkedHashMap<>();
        for (int i = 0; i < nameValue.length; i += 2) {
            out.computeIfAbsent(nameValue[i], k -> new ArrayList<>()).add(nameValue[i + 1]);
        }
        return out;
    }

    private static JobListQuery parse(String... nameValue) {
        return JobListQuery.parse(params(nameValue));
    }

    private static void assertRefused(String expected, String... nameValue) {
        assertThatThrownBy(() -> parse(nameValue)).isInstanceOfSatisfying(RestException.class, e -> {
            assertThat(e.status()).isEqualTo(400);
            assertThat(e.getMessage()).contains(expected).doesNotContainPattern("\\p{Cntrl}");
        });
    }

    private static JobId id(Random random) {
        byte[] b = new byte[16];
        random.nextBytes(b);
        return JobId.of(HexFormat.of().formatHex(b));
    }

    @Test
    void noParametersIsEveryJobOnOnePageOfUpToAThousand() {
        assertThat(parse()).isEqualTo(JobListQuery.all());
        assertThat(JobListQuery.all().limit()).isEqualTo(1000);
        List<JobSummary> jobs = new ArrayList<>();
        Random random = new Random(1);
        for (int i = 0; i < 1000; i++) {
            jobs.add(new JobSummary(id(random), "job " + i, JobStatus.RUNNING, i, i));
        }
        JobListView all = JobListQuery.all().answer(jobs);
        assertThat(all.jobs()).hasSize(1000);
        assertThat(all.total()).isEqualTo(1000);
        assertThat(all.next()).isNull();
        assertThat(all.nextPageToken()).isNull();

        jobs.add(new JobSummary(id(random), "job 1000", JobStatus.RUNNING, 1000, 1000));
        JobListView first = JobListQuery.all().answer(jobs);
        assertThat(first.jobs()).as("at most a thousand per answer").hasSize(1000);
        assertThat(first.total()).isEqualTo(1001);
        assertThat(first.jobs().get(0).name()).as("newest first").isEqualTo("job 1000");
        assertThat(first.next()).isEqualTo("/v1/jobs?limit=1000&pageToken=" + first.nextPageToken());
        assertThat(follow(first.next()).answer(jobs).jobs()).extracting(JobListView.Item::name).containsExactly("job 0");
    }

    @Test
    void ordersNewestFirstThenByIdWithUnknownStartTimesLast() {
        JobId a = JobId.of("a".repeat(32));
        JobId b = JobId.of("b".repeat(32));
        JobId c = JobId.of("c".repeat(32));
        JobId d = JobId.of("d".repeat(32));
        List<JobSummary> jobs = List.of(new JobSummary(d, "d", JobStatus.RUNNING, -1, -1),
                new JobSummary(b, "b", JobStatus.RUNNING, 10, 10), new JobSummary(c, "c", JobStatus.FINISHED, 20, 30),
                new JobSummary(a, "a", JobStatus.RUNNING, 10, 10));
        assertThat(JobListQuery.all().answer(jobs).jobs()).extracting(JobListView.Item::name).containsExactly("c", "a", "b", "d");
    }

    @Test
    void filtersByStatusesNamePartAndMarks() {
        Random random = new Random(2);
        List<JobSummary> jobs = List.of(
                new JobSummary(id(random), "orders to parquet", JobStatus.RUNNING, 1, 1),
                new JobSummary(id(random), "Orders dedup", JobStatus.FAILED, 2, 2),
                new JobSummary(id(random), "clicks", JobStatus.RESTARTING, 3, 3, new JobHealth(LOOP, -1, 0)),
                new JobSummary(id(random), "payments", JobStatus.RUNNING, 4, 4, STALE),
                new JobSummary(id(random), null, JobStatus.INITIALIZING, 5, 5));
        assertThat(names(parse("status", "running,failed"), jobs)).containsExactly("payments", "Orders dedup", "orders to parquet");
        assertThat(names(parse("status", "RUNNING", "status", "Restarting"), jobs))
                .containsExactly("payments", "clicks", "orders to parquet");
        assertThat(names(parse("name", "ORDERS"), jobs)).as("any case; a job without a name yet never matches")
                .containsExactly("Orders dedup", "orders to parquet");
        assertThat(names(parse("name", "orders", "status", "RUNNING"), jobs)).containsExactly("orders to parquet");
        assertThat(names(parse("mark", "crashLoop"), jobs)).containsExactly("clicks");
        assertThat(names(parse("mark", "crashloop,CHECKPOINTSSTALE"), jobs)).containsExactly("payments", "clicks");
        assertThat(parse("status", "CANCELED").answer(jobs).total()).isZero();
        assertThat(parse("status", "running").answer(jobs).total()).isEqualTo(2);
    }

    private static List<String> names(JobListQuery q, List<JobSummary> jobs) {
        JobListView page = q.answer(jobs);
        assertThat(page.total()).isEqualTo(page.jobs().size());
        return page.jobs().stream().map(JobListView.Item::name).toList();
    }

    /**
     * Walks 2,500 jobs (random start times with many ties) page by page, following {@code next}, while
     * jobs are submitted and some ended ones dropped between pages: every job listed from before the
     * walk to its end is seen exactly once, and nothing is seen twice.
     */
    @Test
    void walkingThePagesSeesEveryJobThatStaysExactlyOnceWhileJobsComeAndGo() {
        long seed = System.nanoTime();
        System.out.println("JobListQueryTest seed " + seed);
        Random random = new Random(seed);
        List<JobSummary> jobs = new ArrayList<>();
        for (int i = 0; i < 2_500; i++) {
            JobStatus status = JobStatus.values()[random.nextInt(JobStatus.values().length)];
            jobs.add(new JobSummary(id(random), "job " + i, status, random.nextInt(300), 0));
        }
        Set<String> before = jobs.stream().map(j -> j.jobId().value()).collect(Collectors.toSet());
        Set<String> dropped = new HashSet<>();
        Map<String, Integer> seen = new HashMap<>();
        int limit = 1 + random.nextInt(97);
        JobListQuery query = parse("limit", String.valueOf(limit));
        long newest = 300;
        while (query != null) {
            JobListView page = query.answer(jobs);
            assertThat(page.jobs().size()).as("seed %d", seed).isLessThanOrEqualTo(limit);
            page.jobs().forEach(j -> seen.merge(j.id(), 1, Integer::sum));
            assertThat(page.total()).isEqualTo(jobs.size());
            // between pages: two new jobs (they sort first), and one job dropped
            jobs.add(new JobSummary(id(random), "new", JobStatus.CREATED, ++newest, newest));
            jobs.add(new JobSummary(id(random), "new", JobStatus.CREATED, newest, newest));
            JobSummary gone = jobs.remove(random.nextInt(jobs.size()));
            dropped.add(gone.jobId().value());
            query = page.next() == null ? null : follow(page.next());
        }
        assertThat(seen.values()).as("seed %d: no job twice", seed).allMatch(n -> n == 1);
        Set<String> stayed = new HashSet<>(before);
        stayed.removeAll(dropped);
        assertThat(seen.keySet()).as("seed %d: every job that stayed", seed).containsAll(stayed);
    }

    /** The query of a {@code next} link, as the server would parse it. */
    private static JobListQuery follow(String next) {
        URI uri = URI.create(next);
        assertThat(uri.getPath()).isEqualTo("/v1/jobs");
        Map<String, List<String>> params = new LinkedHashMap<>();
        for (String pair : uri.getRawQuery().split("&")) {
            String[] kv = pair.split("=", 2);
            params.computeIfAbsent(URLDecoder.decode(kv[0], StandardCharsets.UTF_8), k -> new ArrayList<>())
                    .add(URLDecoder.decode(kv[1], StandardCharsets.UTF_8));
        }
        return JobListQuery.parse(params);
    }

    @Test
    void theNextLinkKeepsEveryFilterAndTheLimit() {
        JobListQuery q = parse("status", "failed,RUNNING", "name", "a & b=c%/ é", "mark", "checkpointsStale", "limit", "5");
        JobPageToken token = new JobPageToken(-1, "0".repeat(32));
        String next = q.withPageToken(token).path();
        assertThat(next).isEqualTo("/v1/jobs?status=RUNNING,FAILED&name=a%20%26%20b%3Dc%25%2F%20%C3%A9"
                + "&mark=checkpointsStale&limit=5&pageToken=-1_" + "0".repeat(32));
        assertThat(follow(next)).isEqualTo(q.withPageToken(token));
    }

    @Test
    void invalidValuesAreRefusedSayingWhatIsAccepted() {
        assertRefused("Unknown job status 'DONE' in ?status=; use one or more of [INITIALIZING", "status", "DONE");
        assertRefused("?status= has an empty value", "status", "RUNNING,");
        assertRefused("?status= has an empty value", "status", "");
        assertRefused("Unknown job status '../../secret.txt'", "status", "../../secret.txt");
        assertRefused("Unknown mark 'healthy' in ?mark=; use crashLoop, checkpointsStale", "mark", "healthy");
        for (String limit : List.of("0", "1001", "-1", "abc", "1e3", "", " 5", "+5", "99999999999999999999", "0x10")) {
            assertRefused("?limit= takes a whole number of jobs per page from 1 to 1000, not '", "limit", limit);
        }
        assertThat(parse("limit", "1").limit()).isEqualTo(1);
        assertThat(parse("limit", "1000").limit()).isEqualTo(1000);
        assertRefused("?limit= is given 2 times; give it once", "limit", "5", "limit", "6");
        assertRefused("?name= takes 1 to 200 characters (a part of the job name, any case), not 0", "name", "");
        assertRefused("not 201", "name", "x".repeat(201));
        assertThat(parse("name", "x".repeat(200)).nameContains()).hasSize(200);
        for (String token : List.of("abc", "../../etc/passwd", "1_" + "A".repeat(32), "1_" + "a".repeat(31),
                "-2_" + "a".repeat(32), "01_" + "a".repeat(32), "1_" + "a".repeat(32) + "\n", "9".repeat(19) + "_" + "a".repeat(32))) {
            assertRefused("?pageToken= takes the nextPageToken of an earlier answer of GET /v1/jobs", "pageToken", token);
        }
        assertRefused("not '" + "x".repeat(80) + "...'", "limit", "x".repeat(5000));
        assertRefused("'a?b'", "status", "a\u0000b");
    }
}
