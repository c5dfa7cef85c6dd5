package io.sluice.cli.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.cli.SluiceCli;
import io.sluice.cli.common.ExitCodes;
import io.sluice.cluster.LocalCluster;
import io.sluice.config.Configuration;
import io.sluice.graph.JobId;
import io.sluice.jar.JarJobSubmitter;
import io.sluice.rest.RestOptions;
import io.sluice.rest.RestServerConfig;
import io.sluice.rest.jars.LocalJarDirectory;
import io.sluice.rest.local.LocalClusterBackend;
import io.sluice.rest.server.RestServer;
import io.sluice.util.SystemClock;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A thousand small jobs on one job manager of a {@link LocalCluster} wired as {@code sluice cluster}
 * wires it: half run from an uploaded jar over REST ({@code POST /v1/jars/{id}/run}, really loaded in
 * a class loader of their own by {@link ClusterJarRunner}) by four concurrent clients, half submitted
 * through the Java API at the same time. One in ten is bounded and runs to FINISHED; the others run
 * until cancelled. Then: {@code GET /v1/jobs} paged with an odd page size lists every job exactly once
 * (and {@code sluice list --all} the same), the status filters count exactly, every bounded job wrote
 * each of its numbers exactly once, all others are cancelled (half over REST, half through the API)
 * and end CANCELED, and afterwards every slot is free and no job class loader is left.
 *
 * <p>The number of jobs is {@code -Dsluice.it.jobs}: 1,000 with {@code -Psoak}, 200 in the default build (the
 * parent pom's {@code sluice.it.jobs}). Why not 1,000 always: every running job's source task wakes every
 * 10 ms (a source's {@code emit} parks at most that long, so that checkpoints and cancellation stay
 * prompt), so 900 endless jobs keep some 1.7 of this machine's 2 cores busy and a shared build slow
 * (docs/benchmarks.md, "A thousand jobs on one job manager"). The phases' durations are printed
 * ("ThousandJobsITCase: ..."), not asserted.
 */
class ThousandJobsITCase {
    private static final int JOBS = Integer.getInteger("sluice.it.jobs", 1_000);

    private static final int RECORDS = 100;
    private static final Duration TIMEOUT = Duration.ofMinutes(3);
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    private LocalCluster cluster;
    private RestServer server;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final ExecutorService clients = Executors.newFixedThreadPool(4, r -> {
        Thread t = new Thread(r, "rest-client");
        t.setDaemon(true);
        return t;
    });

    @AfterEach
    void stop() {
        clients.shutdownNow();
        if (server != null) {
            server.close();
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    /** One job of the test: its number decides its name, how it is submitted and whether it ends by itself. */
    private record Planned(int index) {
        boolean bounded() {
            return index % 10 == 0;
        }

        boolean overRest() {
            return index % 2 == 1;
        }

        String name() {
            return (bounded() ? "bounded " : "endless ") + index;
        }
    }

    @Test
    void aThousandJobsAreSubmittedOverRestAndTheJavaApiListedPageByPageCancelledAndCountedExactly() throws Exception {
        assertThat(JOBS).as("-Dsluice.it.jobs: at least 20, so that both ways submit bounded jobs").isGreaterThanOrEqualTo(20);
        long t0 = System.nanoTime();
        Configuration configuration = new Configuration().set(RestOptions.PORT, 0);
        cluster = LocalCluster.builder().configuration(configuration).taskExecutors(4)
                .slotsPerTaskExecutor(JOBS / 4 + 1).build();
        JarJobSubmitter submitter = new JarJobSubmitter(cluster.userCodeClassLoaders(), cluster.haServices()::jobJarStore,
                cluster::dispatcher, cluster.ioExecutor(), JarJobSubmitter.DEFAULT_MAIN_TIMEOUT);
        server = RestServer.builder(RestServerConfig.fromConfiguration(configuration),
                new LocalClusterBackend(cluster, new LocalJarDirectory(dir.resolve("jars"), cluster.ioExecutor(),
                        SystemClock.INSTANCE), new ClusterJarRunner(submitter))).build();
        server.start();
        String jarId = upload(Files.readAllBytes(tinyJobJar())).path("id").asText();

        // Submit: REST from four clients and the Java API from this thread, at the same time.
        long submitStart = System.nanoTime();
        Map<String, Planned> byId = new ConcurrentHashMap<>();
        List<CompletableFuture<Void>> overRest = new ArrayList<>();
        for (int i = 0; i < JOBS; i++) {
            Planned job = new Planned(i);
            if (job.overRest()) {
                overRest.add(CompletableFuture.runAsync(() -> {
                    Answer a = post("/v1/jars/" + jarId + "/run", Map.of("args", List.of(job.name(),
                            String.valueOf(job.bounded() ? RECORDS : 0), output(job).toString())));
                    assertThat(a.status()).as(a.body()).isEqualTo(202);
                    byId.put(a.json().path("jobId").asText(), job);
                }, clients));
            }
        }
        for (int i = 0; i < JOBS; i++) {
            Planned job = new Planned(i);
            if (!job.overRest()) {
                byId.put(cluster.submit(TinyJobProgram.graph(job.name(), job.bounded() ? RECORDS : 0, output(job).toString()))
                        .value(), job);
            }
        }
        CompletableFuture.allOf(overRest.toArray(CompletableFuture[]::new)).get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        long submitted = System.nanoTime();
        assertThat(byId).hasSize(JOBS);
        int bounded = (int) byId.values().stream().filter(Planned::bounded).count();

        await().atMost(TIMEOUT).pollInterval(Duration.ofMillis(250)).until(() ->
                total("?status=FINISHED") == bounded && total("?status=RUNNING") == JOBS - bounded);
        long running = System.nanoTime();

        // Every job exactly once, walking the pages (an odd page size, so the last page is short).
        List<String> walked = new ArrayList<>();
        String next = "/v1/jobs?limit=97";
        int pages = 0;
        while (next != null) {
            JsonNode page = get(next).json();
            assertThat(page.path("total").asInt()).isEqualTo(JOBS);
            page.path("jobs").forEach(j -> walked.add(j.path("id").asText()));
            next = page.path("next").isNull() ? null : page.path("next").asText();
            pages++;
        }
        long listed = System.nanoTime();
        assertThat(pages).isEqualTo((JOBS + 96) / 97);
        assertThat(walked).hasSize(JOBS).doesNotHaveDuplicates().containsExactlyInAnyOrderElementsOf(byId.keySet());
        assertThat(cliListAll()).as("sluice list --all").containsExactlyInAnyOrderElementsOf(byId.keySet());
        JsonNode named = get("/v1/jobs?name=bounded%201&status=FINISHED").json();
        int boundedFromOne = (int) byId.values().stream().filter(j -> j.bounded() && j.name().startsWith("bounded 1")).count();
        assertThat(named.path("total").asInt()).isEqualTo(boundedFromOne);

        // Exact counts for the jobs that ran to completion: each number once.
        for (Map.Entry<String, Planned> e : byId.entrySet()) {
            if (e.getValue().bounded()) {
                assertThat(numbersWritten(output(e.getValue()))).as("numbers of %s (%s)", e.getValue().name(), e.getKey())
                        .isEqualTo(allNumbers());
            }
        }

        // Cancel the others: the REST-submitted ones over REST, the others through the Java API.
        long cancelStart = System.nanoTime();
        List<CompletableFuture<?>> cancels = new ArrayList<>();
        for (Map.Entry<String, Planned> e : byId.entrySet()) {
            Planned job = e.getValue();
            if (job.bounded()) {
                continue;
            }
            if (job.overRest()) {
                cancels.add(CompletableFuture.runAsync(() -> {
                    Answer a = post("/v1/jobs/" + e.getKey() + "/cancel", Map.of());
                    assertThat(a.status()).as(a.body()).isEqualTo(202);
                }, clients));
            } else {
                cancels.add(cluster.dispatcher().cancelJob(JobId.of(e.getKey())));
            }
        }
        CompletableFuture.allOf(cancels.toArray(CompletableFuture[]::new)).get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        await().atMost(TIMEOUT).pollInterval(Duration.ofMillis(250)).until(() -> total("?status=CANCELED") == JOBS - bounded);
        long cancelled = System.nanoTime();
        assertThat(total("?status=FINISHED")).isEqualTo(bounded);
        assertThat(total("")).isEqualTo(JOBS);
        JsonNode overview = get("/v1/overview").json();
        assertThat(overview.path("jobs").path("running").asInt()).isZero();
        assertThat(overview.path("slotsFree").asInt()).as("every slot free again").isEqualTo(overview.path("slotsTotal").asInt());
        await().atMost(TIMEOUT).until(() -> privateJarCopies() == 0); // every REST job's class loader closed

        System.out.printf("ThousandJobsITCase: %d jobs (%d over REST, %d bounded): cluster up %d ms, submitted in %d ms,"
                        + " all RUNNING/FINISHED %d ms after, %d pages of 97 in %d ms, cancelled and CANCELED in %d ms%n",
                JOBS, overRest.size(), bounded, millis(t0, submitStart), millis(submitStart, submitted),
                millis(submitted, running), pages, millis(running, listed), millis(cancelStart, cancelled));
    }

    private static long millis(long from, long to) {
        return TimeUnit.NANOSECONDS.toMillis(to - from);
    }

    private Path output(Planned job) {
        return dir.resolve("out").resolve(String.valueOf(job.index()));
    }

    private static Set<Long> allNumbers() {
        Set<Long> all = new HashSet<>();
        for (long i = 0; i < RECORDS; i++) {
            all.add(i);
        }
        return all;
    }

    /** The numbers in the job's part files; fails if one appears twice. */
    private static Set<Long> numbersWritten(Path output) throws IOException {
        Set<Long> numbers = new HashSet<>();
        try (Stream<Path> files = Files.list(output)) {
            for (Path part : (Iterable<Path>) files::iterator) {
                for (String line : Files.readAllLines(part)) {
                    assertThat(numbers.add(Long.parseLong(line))).as("%s written twice in %s", line, output).isTrue();
                }
            }
        }
        return numbers;
    }

    /** A jar of {@link TinyJobProgram} (its class file from this test's class path) with it as Main-Class. */
    private Path tinyJobJar() throws IOException {
        String entry = TinyJobProgram.class.getName().replace('.', '/') + ".class";
        Manifest manifest = new Manifest();
        manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        manifest.getMainAttributes().put(Attributes.Name.MAIN_CLASS, TinyJobProgram.class.getName());
        Path jar = dir.resolve("tiny.jar");
        try (OutputStream file = Files.newOutputStream(jar); JarOutputStream out = new JarOutputStream(file, manifest);
             InputStream classFile = TinyJobProgram.class.getClassLoader().getResourceAsStream(entry)) {
            out.putNextEntry(new JarEntry(entry));
            out.write(classFile.readAllBytes());
            out.closeEntry();
        }
        return jar;
    }

    private long privateJarCopies() throws IOException {
        Path cache = cluster.userCodeClassLoaders().cacheDirectory();
        if (!Files.isDirectory(cache)) {
            return 0;
        }
        try (Stream<Path> files = Files.list(cache)) {
            return files.count();
        }
    }

    /** The ids {@code sluice list --all --output json} prints, pages of 250. */
    private List<String> cliListAll() throws IOException {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        var cli = SluiceCli.commandLine();
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(new PrintWriter(err, true));
        int rc = cli.execute("list", "--all", "--limit", "250", "--output", "json", "--cluster", "http://127.0.0.1:" + server.port());
        assertThat(rc).as(err.toString()).isEqualTo(ExitCodes.OK);
        List<String> ids = new ArrayList<>();
        JSON.readTree(out.toString()).path("jobs").forEach(j -> ids.add(j.path("id").asText()));
        return Collections.unmodifiableList(ids);
    }

    // ------------------------------------------------------------------ HTTP

    private record Answer(int status, String body, JsonNode json) {
    }

    private int total(String query) {
        return get("/v1/jobs" + query + (query.isEmpty() ? "?" : "&") + "limit=1").json().path("total").asInt();
    }

    private JsonNode upload(byte[] content) {
        String boundary = "sluice-" + UUID.randomUUID();
        byte[] head = ("--" + boundary + "\r\nContent-Disposition: form-data; name=\"jarfile\"; filename=\"tiny.jar\""
                + "\r\nContent-Type: application/java-archive\r\n\r\n").getBytes(StandardCharsets.UTF_8);
        byte[] tail = ("\r\n--" + boundary + "--\r\n").getBytes(StandardCharsets.UTF_8);
        Answer a = send(request("/v1/jars").header("Content-Type", "multipart/form-data; boundary=" + boundary)
                .POST(HttpRequest.BodyPublishers.ofByteArrays(List.of(head, content, tail))).build());
        assertThat(a.status()).as(a.body()).isEqualTo(200);
        return a.json();
    }

    private Answer post(String path, Map<String, Object> body) {
        try {
            return send(request(path).header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(body))).build());
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    private Answer get(String path) {
        Answer a = send(request(path).GET().build());
        assertThat(a.status()).as(path + ": " + a.body()).isEqualTo(200);
        return a;
    }

    private HttpRequest.Builder request(String path) {
        return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + path)).timeout(Duration.ofSeconds(70));
    }

    private Answer send(HttpRequest request) {
        try {
            HttpResponse<String> r = http.send(request, HttpResponse.BodyHandlers.ofString());
            JsonNode json = null;
            try {
                json = r.body().isEmpty() ? null : JSON.readTree(r.body());
            } catch (IOException notJson) {
                // left null: the assertions say so
            }
            return new Answer(r.statusCode(), r.body(), json);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
