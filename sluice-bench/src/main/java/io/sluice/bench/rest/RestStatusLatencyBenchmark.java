package io.sluice.bench.rest;

import ch.qos.logback.classic.Level;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.api.StreamExecutionEnvironment;
import io.sluice.api.sink.DiscardingSink;
import io.sluice.api.source.SequenceSource;
import io.sluice.cluster.LocalCluster;
import io.sluice.concurrent.DaemonThreadFactory;
import io.sluice.config.RestartStrategyConfig;
import io.sluice.examples.InjectedFailures;
import io.sluice.examples.KeyedCountingJob;
import io.sluice.graph.JobGraph;
import io.sluice.graph.JobId;
import io.sluice.jobmaster.RecoveryBackoff;
import io.sluice.rest.server.RestServer;
import io.sluice.rest.RestServerConfig;
import io.sluice.rest.jars.JarRunner;
import io.sluice.rest.local.LocalClusterBackend;
import io.sluice.rest.jars.LocalJarDirectory;
import io.sluice.storage.FaultInjectingBlobStore;
import io.sluice.util.SystemClock;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Comparator;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.HdrHistogram.Histogram;
import org.slf4j.LoggerFactory;

/**
 * REST job-status latency over HTTP on loopback: {@code GET /v1/jobs/{id}} from one client thread
 * (the JDK's HttpClient, HTTP/1.1 keep-alive), request sent to answer parsed, recorded in an
 * HdrHistogram, for
 *
 * <ol type="a">
 *   <li>a running job (keyed counting, parallelism 2, 20,000 records/s, checkpoints every 100 ms);</li>
 *   <li>a job whose recovery hangs on checkpoint storage: the job moved to a standby job manager
 *       while its storage hangs ({@link FaultInjectingBlobStore#hang()}); every answer must be
 *       INITIALIZING.</li>
 * </ol>
 * Target (issue 11): p99 at most 5 ms in both.
 *
 * <p>Run: {@code java -Xmx2g -cp <classpath> io.sluice.bench.rest.RestStatusLatencyBenchmark [--smoke]}
 * (see docs/benchmarks.md).
 */
public final class RestStatusLatencyBenchmark {
    private static final ObjectMapper JSON = new ObjectMapper();

    private RestStatusLatencyBenchmark() {}

    /** Settings; {@link #smoke()} is a tiny run for the smoke test. */
    public record Settings(int warmupRequests, int measuredRequests) {
        public static Settings full() {
            return new Settings(5_000, 20_000);
        }

        public static Settings smoke() {
            return new Settings(50, 200);
        }
    }

    /** Latencies of one scenario, in nanoseconds, and what every answer said. */
    public record Scenario(String name, int requests, int expectedStatusAnswers, long p50, long p90, long p99, long p999,
                           long max, double mean) {
        String describe() {
            return String.format(Locale.ROOT, "%-34s n=%d  p50 %s  p90 %s  p99 %s  p99.9 %s  max %s  mean %s",
                    name, requests, ms(p50), ms(p90), ms(p99), ms(p999), ms(max), ms((long) mean));
        }
    }

    public record Result(Scenario running, Scenario hung) {
    }

    public static void main(String[] args) throws Exception {
        quietLogging();
        boolean smoke = Arrays.asList(args).contains("--smoke");
        Result r = run(smoke ? Settings.smoke() : Settings.full());
        print(r, smoke);
        System.exit(0);
    }

    public static Result run(Settings s) throws Exception {
        Path dir = Files.createTempDirectory("sluice-rest-bench");
        AtomicReference<FaultInjectingBlobStore> faults = new AtomicReference<>();
        ExecutorService io = Executors.newCachedThreadPool(DaemonThreadFactory.named("bench-jar-io"));
        LocalCluster cluster = LocalCluster.builder().haDirectory(dir.resolve("ha")).taskExecutors(2).slotsPerTaskExecutor(2)
                .blobStoreDecorator(FaultInjectingBlobStore.capturingInto(faults))
                .recoveryBackoff(new RecoveryBackoff(Duration.ofMillis(20), Duration.ofMillis(200), 2.0, 0.2))
                .build();
        RestServer server = RestServer.builder(RestServerConfig.defaults().withPort(0),
                new LocalClusterBackend(cluster, new LocalJarDirectory(dir.resolve("jars"), io, SystemClock.INSTANCE),
                        JarRunner.unsupported())).build().start();
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        try {
            JobId id = cluster.submit(countingJob(dir.resolve("checkpoints")));
            URI status = URI.create("http://127.0.0.1:" + server.port() + "/v1/jobs/" + id);
            await("the job RUNNING with 2 completed checkpoints", Duration.ofSeconds(60), () -> {
                JsonNode d = get(http, status);
                return d.get("status").asText().equals("RUNNING") && d.get("checkpoints").get("completed").asLong() >= 2;
            });
            Scenario running = measure("(a) running job", http, status, "RUNNING", s);

            LocalCluster.JobManager standby = cluster.startJobManager();
            FaultInjectingBlobStore storage = faults.get();
            storage.hang();
            cluster.stopJobManager(cluster.jobManagers().get(0));
            await("the standby's recovery to block on storage", Duration.ofSeconds(30),
                    () -> standby.dispatcher().isLeader() && storage.blockedCalls() > 0);
            Scenario hung = measure("(b) recovery hanging on storage", http, status, "INITIALIZING", s);
            if (storage.blockedCalls() == 0) {
                throw new IllegalStateException("Storage stopped hanging during the measurement");
            }
            return new Result(running, hung);
        } finally {
            if (faults.get() != null) {
                faults.get().heal();
            }
            server.close();
            cluster.close();
            io.shutdownNow();
            deleteQuietly(dir);
        }
    }

    private static Scenario measure(String name, HttpClient http, URI uri, String expectedStatus, Settings s)
            throws Exception {
        for (int i = 0; i < s.warmupRequests(); i++) {
            expect(get(http, uri), expectedStatus);
        }
        Histogram h = new Histogram(Duration.ofSeconds(60).toNanos(), 3);
        int expected = 0;
        for (int i = 0; i < s.measuredRequests(); i++) {
            long t0 = System.nanoTime();
            JsonNode d = get(http, uri);
            h.recordValue(System.nanoTime() - t0);
            expect(d, expectedStatus);
            expected++;
        }
        return new Scenario(name, (int) h.getTotalCount(), expected, h.getValueAtPercentile(50), h.getValueAtPercentile(90),
                h.getValueAtPercentile(99), h.getValueAtPercentile(99.9), h.getMaxValue(), h.getMean());
    }

    private static void expect(JsonNode d, String status) {
        if (!status.equals(d.get("status").asText())) {
            throw new IllegalStateException("Expected " + status + ", got " + d);
        }
    }

    private static JsonNode get(HttpClient http, URI uri) throws IOException, InterruptedException {
        HttpResponse<byte[]> r = http.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(20)).GET().build(),
                HttpResponse.BodyHandlers.ofByteArray());
        if (r.statusCode() != 200) {
            throw new IllegalStateException("GET " + uri + " answered " + r.statusCode() + ": " + new String(r.body()));
        }
        return JSON.readTree(r.body());
    }

    private static JobGraph countingJob(Path checkpointDir) {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.create().setParallelism(2)
                .enableCheckpointing(Duration.ofMillis(100))
                .setCheckpointDir(checkpointDir.toString())
                .setRestartStrategy(new RestartStrategyConfig.FixedDelay(10, Duration.ofMillis(10)));
        KeyedCountingJob.build(env, SequenceSource.unbounded(0).withRate(20_000), 8, InjectedFailures.none(),
                new DiscardingSink<>());
        return env.buildJobGraph("rest status benchmark");
    }

    public static void print(Result r, boolean smoke) {
        System.out.println("== RestStatusLatencyBenchmark" + (smoke ? " (SMOKE: tiny counts, figures meaningless)" : ""));
        System.out.printf(Locale.ROOT, "machine: %d CPUs available to the JVM, Java %s, max heap %d MiB%n",
                Runtime.getRuntime().availableProcessors(), System.getProperty("java.version"),
                Runtime.getRuntime().maxMemory() >> 20);
        System.out.println("GET /v1/jobs/{id} over HTTP/1.1 on loopback, one client thread, keep-alive:");
        System.out.println("  " + r.running().describe());
        System.out.println("  " + r.hung().describe());
        System.out.println("target: p99 <= 5 ms in both: " + (r.running().p99() <= 5_000_000 && r.hung().p99() <= 5_000_000
                ? "met" : "NOT met"));
    }

    static String ms(long nanos) {
        return String.format(Locale.ROOT, "%.3f ms", nanos / 1e6);
    }

    private static void quietLogging() {
        org.slf4j.Logger root = LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
        if (root instanceof ch.qos.logback.classic.Logger l) {
            l.setLevel(Level.toLevel(System.getProperty("bench.logLevel", "WARN")));
        }
    }

    /** A condition that may throw. */
    private interface Condition {
        boolean holds() throws Exception;
    }

    /** Polls every millisecond until {@code condition} holds or {@code timeout} passes. */
    private static void await(String what, Duration timeout, Condition condition) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.holds()) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("Timed out after " + timeout + " waiting for " + what);
            }
            Thread.sleep(1);
        }
    }

    private static void deleteQuietly(Path dir) {
        try (Stream<Path> s = Files.walk(dir)) {
            s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException ignored) {
            // best effort
        }
    }
}
