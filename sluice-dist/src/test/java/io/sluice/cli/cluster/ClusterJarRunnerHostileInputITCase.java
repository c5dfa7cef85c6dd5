package io.sluice.cli.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.api.StreamExecutionEnvironment;
import io.sluice.cluster.LocalCluster;
import io.sluice.config.Configuration;
import io.sluice.jar.JarJobSubmitter;
import io.sluice.rest.RestOptions;
import io.sluice.rest.server.RestServer;
import io.sluice.rest.RestServerConfig;
import io.sluice.rest.local.LocalClusterBackend;
import io.sluice.rest.jars.LocalJarDirectory;
import io.sluice.util.SystemClock;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.stream.Stream;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Hostile jars over real HTTP against the REST API wired as {@code sluice cluster} wires it
 * ({@link ClusterCommand}): a {@link LocalCluster}, a {@link LocalJarDirectory} and the runtime's
 * {@link JarJobSubmitter} behind {@link ClusterJarRunner}, so every jar is really loaded in a class
 * loader of its own and its {@code main} really runs. Each is answered with a JSON error (or, for user
 * code that fails only while the job runs, a FAILED job with the user's exception), no class loader or
 * jar copy is left behind, and the cluster then runs the example jar to FINISHED.
 */
class ClusterJarRunnerHostileInputITCase {
    private static final Duration TIMEOUT = Duration.ofSeconds(60);
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String USER_MESSAGE = "the input topic 'orders' is not configured (pass --topic)";

    @TempDir
    Path dir;

    private LocalCluster cluster;
    private RestServer server;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    /** Starts the cluster and the server as {@link ClusterCommand} does, with the given main and answer timeouts. */
    private void start(Duration mainTimeout, Duration answerTimeout) {
        Configuration configuration = new Configuration().set(RestOptions.PORT, 0);
        cluster = LocalCluster.builder().configuration(configuration).taskExecutors(1).slotsPerTaskExecutor(2).build();
        JarJobSubmitter submitter = new JarJobSubmitter(cluster.userCodeClassLoaders(), cluster.haServices()::jobJarStore,
                cluster::dispatcher, cluster.ioExecutor(), mainTimeout);
        LocalJarDirectory jars = new LocalJarDirectory(dir.resolve("jars"), cluster.ioExecutor(), SystemClock.INSTANCE);
        server = RestServer.builder(RestServerConfig.fromConfiguration(configuration),
                new LocalClusterBackend(cluster, jars, new ClusterJarRunner(submitter))).answerTimeout(answerTimeout).build();
        server.start();
    }

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void hostileJarsAreAnsweredWithJsonErrorsAndTheClusterStillRunsOtherJobs() throws Exception {
        start(JarJobSubmitter.DEFAULT_MAIN_TIMEOUT, RestServer.ANSWER_TIMEOUT); // the defaults of sluice cluster
        // Not a zip: refused at upload, before any loader sees it.
        Answer notZip = upload("evil.jar", "PK? no, just text pretending to be a jar".getBytes(StandardCharsets.UTF_8));
        assertError(notZip, 400, "not a valid zip");

        Path programs = programsJar("hostile.Missing"); // its Main-Class names a class the jar does not have
        String jarId = upload("programs.jar", Files.readAllBytes(programs)).json().path("id").asText();

        // The manifest's Main-Class is not in the jar (found by the REST layer's check of the jar's entries,
        // before any class loader is made).
        assertError(run(jarId, Map.of()), 400, "(programs.jar) has no class hostile.Missing (its Main-Class)");
        // An explicit entryClass the jar does not have.
        assertError(run(jarId, Map.of("entryClass", "hostile.Nope")), 400, "has no class hostile.Nope");
        // No Main-Class at all, and no entryClass.
        String noMainClass = upload("plain.jar", Files.readAllBytes(programsJar(null))).json().path("id").asText();
        assertError(run(noMainClass, Map.of()), 400, "no Main-Class", "entryClass");
        // main throws: 400 with the user's exception, class and message.
        assertError(run(jarId, Map.of("entryClass", "hostile.Throws")), 400,
                "The main method of hostile.Throws (jar programs.jar) threw java.lang.IllegalStateException: " + USER_MESSAGE);
        // main returns without calling execute.
        assertError(run(jarId, Map.of("entryClass", "hostile.NoExecute")), 400,
                "hostile.NoExecute.main (jar programs.jar) returned without calling execute");
        // A class without main.
        assertError(run(jarId, Map.of("entryClass", "hostile.NoMain")), 400, "has no public static void main");

        // None of the rejected runs left a class loader or a private jar copy behind.
        await().atMost(TIMEOUT).until(() -> privateJarCopies() == 0);
        assertThat(get("/v1/jobs").json().path("jobs")).as("no rejected program became a job").isEmpty();

        // User code that fails only while the job runs: accepted (202), then FAILED with the user's exception.
        Answer failing = run(jarId, Map.of("entryClass", "hostile.FailingFunction",
                "args", List.of(dir.resolve("failing-out").toString()), "config", Map.of("restart-strategy", "none")));
        assertThat(failing.status()).as(failing.body()).isEqualTo(202);
        String failingJob = failing.json().path("jobId").asText();
        await().atMost(TIMEOUT).until(() -> "FAILED".equals(get("/v1/jobs/" + failingJob).json().path("status").asText()));
        assertThat(get("/v1/jobs/" + failingJob).json().path("failure").path("message").asText())
                .contains("user function rejected record 3");
        assertThat(get("/v1/jobs/" + failingJob + "/exceptions").body()).contains("user function rejected record 3");

        // The cluster still serves, and runs a good jar to the end.
        assertThat(get("/v1/overview").status()).isEqualTo(200);
        Path examples = Path.of(System.getProperty("sluice.examples.jar"));
        String examplesId = upload("sluice-examples.jar", Files.readAllBytes(examples)).json().path("id").asText();
        Answer good = run(examplesId, Map.of("parallelism", 2,
                "args", List.of("--records", "500", "--keys", "4", "--rate", "0", "--output", dir.resolve("out").toString())));
        assertThat(good.status()).as(good.body()).isEqualTo(202);
        String goodJob = good.json().path("jobId").asText();
        await().atMost(TIMEOUT).until(() -> "FINISHED".equals(get("/v1/jobs/" + goodJob).json().path("status").asText()));
    }

    /**
     * A {@code main} that waits forever instead of calling {@code execute}: answered 400 with the runner's
     * reason once the main timeout passed (its thread interrupted), not 503 at the server's shorter answer
     * timeout while the program still runs (and might submit a job after the client was told it failed).
     */
    @Test
    void aMainThatNeverCallsExecuteIsAnsweredWithTheRunnersReasonNotAServerTimeout() throws Exception {
        start(Duration.ofSeconds(3), Duration.ofSeconds(1)); // scaled down: main timeout above the answer timeout, as by default
        String jarId = upload("programs.jar", Files.readAllBytes(programsJar(null))).json().path("id").asText();
        assertError(run(jarId, Map.of("entryClass", "hostile.Waits")), 400,
                "hostile.Waits.main (jar programs.jar) did not call execute(...) within 3 s; it was interrupted");
        await().atMost(TIMEOUT).until(() -> privateJarCopies() == 0);
        assertThat(get("/v1/jobs").json().path("jobs")).isEmpty();
        assertThat(get("/v1/overview").status()).isEqualTo(200);
    }

    private static void assertError(Answer a, int status, String... words) {
        assertThat(a.status()).as(a.body()).isEqualTo(status);
        assertThat(a.json()).as("a JSON error body: %s", a.body()).isNotNull();
        assertThat(a.json().path("status").asInt()).isEqualTo(status);
        String error = a.json().path("error").asText();
        for (String w : words) {
            assertThat(error).contains(w);
        }
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

    // ------------------------------------------------------------------ HTTP

    private record Answer(int status, String body, JsonNode json) {
    }

    private Answer upload(String fileName, byte[] content) {
        String boundary = "sluice-" + UUID.randomUUID();
        byte[] head = ("--" + boundary + "\r\nContent-Disposition: form-data; name=\"jarfile\"; filename=\"" + fileName
                + "\"\r\nContent-Type: application/java-archive\r\n\r\n").getBytes(StandardCharsets.UTF_8);
        byte[] tail = ("\r\n--" + boundary + "--\r\n").getBytes(StandardCharsets.UTF_8);
        return send(request("/v1/jars").header("Content-Type", "multipart/form-data; boundary=" + boundary)
                .POST(HttpRequest.BodyPublishers.ofByteArrays(List.of(head, content, tail))).build());
    }

    private Answer run(String jarId, Map<String, Object> body) throws IOException {
        return send(request("/v1/jars/" + jarId + "/run").header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(body))).build());
    }

    private Answer get(String path) {
        return send(request(path).GET().build());
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

    // ------------------------------------------------------------------ user jars

    private static final Map<String, String> PROGRAMS = Map.of(
            "hostile.Throws", """
                    package hostile;
                    public final class Throws {
                        public static void main(String[] args) {
                            throw new IllegalStateException("%s");
                        }
                    }
                    """.formatted(USER_MESSAGE),
            "hostile.NoExecute", """
                    package hostile;
                    import io.sluice.api.StreamExecutionEnvironment;
                    public final class NoExecute {
                        public static void main(String[] args) {
                            StreamExecutionEnvironment.create(); // builds nothing, never calls execute
                        }
                    }
                    """,
            "hostile.Waits", """
                    package hostile;
                    public final class Waits {
                        public static void main(String[] args) throws InterruptedException {
                            new java.util.concurrent.CountDownLatch(1).await(); // never calls execute
                        }
                    }
                    """,
            "hostile.NoMain", """
                    package hostile;
                    public final class NoMain {
                        public static void run(String[] args) {
                        }
                    }
                    """,
            "hostile.FailingFunction", """
                    package hostile;
                    import io.sluice.api.StreamExecutionEnvironment;
                    import io.sluice.api.functions.MapFunction;
                    import io.sluice.api.source.SequenceSource;
                    public final class FailingFunction {
                        public static final class Reject implements MapFunction<Long, String> {
                            @Override public String map(Long v) {
                                if (v == 3) {
                                    throw new IllegalArgumentException("user function rejected record " + v);
                                }
                                return "value " + v;
                            }
                        }
                        public static void main(String[] args) throws Exception {
                            StreamExecutionEnvironment env = StreamExecutionEnvironment.create().setParallelism(1);
                            env.fromSource(SequenceSource.bounded(0, 9), "numbers").map(new Reject())
                                    .writeAsTextAtLeastOnce(args[0]);
                            env.execute("failing user function");
                        }
                    }
                    """);

    /** The hostile programs compiled against sluice-core into one jar, with {@code mainClass} in its manifest if not null. */
    private Path programsJar(String mainClass) throws Exception {
        Path root = Files.createTempDirectory(dir, "programs");
        Path classes = Files.createDirectories(root.resolve("classes"));
        List<String> args = new java.util.ArrayList<>(List.of("-d", classes.toString(), "-classpath", coreClassPath(),
                "-proc:none", "-nowarn"));
        for (Map.Entry<String, String> e : PROGRAMS.entrySet()) {
            Path src = root.resolve("src").resolve(e.getKey().replace('.', '/') + ".java");
            Files.createDirectories(src.getParent());
            Files.writeString(src, e.getValue());
            args.add(src.toString());
        }
        ByteArrayOutputStream errors = new ByteArrayOutputStream();
        int rc = ToolProvider.getSystemJavaCompiler().run(null, null, new PrintStream(errors), args.toArray(String[]::new));
        assertThat(rc).as("javac: %s", errors).isZero();
        Manifest manifest = new Manifest();
        manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        if (mainClass != null) {
            manifest.getMainAttributes().put(Attributes.Name.MAIN_CLASS, mainClass);
        }
        Path jar = root.resolve("programs.jar");
        try (OutputStream file = Files.newOutputStream(jar);
             JarOutputStream out = new JarOutputStream(file, manifest);
             Stream<Path> all = Files.walk(classes)) {
            for (Path p : (Iterable<Path>) all.filter(Files::isRegularFile)::iterator) {
                out.putNextEntry(new JarEntry(classes.relativize(p).toString().replace('\\', '/')));
                out.write(Files.readAllBytes(p));
                out.closeEntry();
            }
        }
        return jar;
    }

    private static String coreClassPath() throws Exception {
        return Path.of(StreamExecutionEnvironment.class.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
    }
}
