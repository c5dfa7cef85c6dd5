package io.sluice.rest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.cluster.LocalCluster;
import io.sluice.examples.InjectedFailures;
import io.sluice.graph.JobId;
import io.sluice.rest.jars.JarRunner;
import io.sluice.rest.model.JarInfo;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Jar upload, listing and run over HTTP. The jar runner here is a stand-in that records what it was
 * asked and submits a counting job, so the test sees the whole path from upload to a running job;
 * loading the user's classes is the jar loader's part (io.sluice.jar).
 */
class JarRoutesITCase {
    @TempDir
    Path dir;
    private final List<RunCall> runs = new CopyOnWriteArrayList<>();
    private RestTestCluster rest;

    record RunCall(Path file, JarInfo jar, RunRequest request) {
    }

    @BeforeEach
    void start() {
        LocalCluster cluster = LocalCluster.builder().build();
        JarRunner recording = (file, jar, request) -> {
            runs.add(new RunCall(file, jar, request));
            return CompletableFuture.supplyAsync(() -> {
                try {
                    return cluster.submit(TestJobs.counting(jar.name(), 1_000_000, 1_000, dir.resolve("cp").toString(),
                            InjectedFailures.none()));
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
        };
        rest = new RestTestCluster(cluster, dir.resolve("jars"), RestServerConfig.defaults(), recording);
    }

    @AfterEach
    void stop() {
        rest.close();
    }

    @Test
    void uploadStoresTheJarUnderAGeneratedNameListsItAndRunPassesArgumentsAndParallelism() throws Exception {
        byte[] jar = TestJars.jar("com.example.CountingJob", "com.example.CountingJob", "com.example.Other");
        RestTestClient.Answer up = rest.client.upload("/v1/jars", "jarfile", "../../counting-job.jar", jar);
        assertThat(up.status()).as(up.body()).isEqualTo(200);
        JsonNode info = up.json();
        String jarId = info.get("id").asText();
        assertThat(jarId).matches("[0-9a-f]{32}");
        assertThat(info.get("name").asText()).as("directories dropped from the uploaded name").isEqualTo("counting-job.jar");
        assertThat(info.get("sizeBytes").asLong()).isEqualTo(jar.length);
        assertThat(info.get("sha256").asText()).isEqualTo(HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(jar)));
        assertThat(info.get("uploadedAtMillis").asLong()).isPositive();
        try (Stream<Path> files = Files.list(dir.resolve("jars"))) {
            assertThat(files.map(p -> p.getFileName().toString())).containsExactlyInAnyOrder(jarId + ".jar", jarId + ".properties");
        }
        assertThat(dir.resolve("counting-job.jar")).doesNotExist();
        assertThat(Files.readAllBytes(dir.resolve("jars").resolve(jarId + ".jar"))).isEqualTo(jar);

        JsonNode list = rest.client.get("/v1/jars").json();
        assertThat(list.get("jars")).hasSize(1);
        assertThat(list.get("jars").get(0).get("id").asText()).isEqualTo(jarId);

        RestTestClient.Answer run = rest.client.post("/v1/jars/" + jarId + "/run",
                "{\"parallelism\": 2, \"args\": [\"--records\", \"100\"], \"config\": {\"checkpoints.interval\": \"1 s\"}}");
        assertThat(run.status()).as(run.body()).isEqualTo(202);
        JobId jobId = JobId.of(run.json().get("jobId").asText());
        assertThat(runs).hasSize(1);
        RunCall call = runs.get(0);
        assertThat(call.request()).isEqualTo(new RunRequest("com.example.CountingJob", 2, List.of("--records", "100"),
                Map.of("checkpoints.interval", "1 s")));
        assertThat(call.file()).isEqualTo(dir.resolve("jars").resolve(jarId + ".jar"));
        await().atMost(Duration.ofSeconds(20)).until(() -> rest.client.get("/v1/jobs/" + jobId).status() == 200);

        RestTestClient.Answer explicit = rest.client.post("/v1/jars/" + jarId + "/run", "{\"entryClass\": \"com.example.Other\"}");
        assertThat(explicit.status()).as(explicit.body()).isEqualTo(202);
        assertThat(runs.get(runs.size() - 1).request().entryClass()).isEqualTo("com.example.Other");
    }

    @Test
    void aJarWithoutItsClassOrWithoutAMainClassIsRefusedWith400AndNothingRuns() {
        String withClass = rest.client.upload("/v1/jars", "jarfile", "a.jar", TestJars.jar("com.example.Missing", "com.example.Present"))
                .json().get("id").asText();
        RestTestClient.Answer missingMain = rest.client.post("/v1/jars/" + withClass + "/run", "");
        assertThat(missingMain.status()).isEqualTo(400);
        assertThat(missingMain.error()).contains("has no class com.example.Missing").contains("Main-Class");
        RestTestClient.Answer missingExplicit = rest.client.post("/v1/jars/" + withClass + "/run", "{\"entryClass\": \"com.example.Nope\"}");
        assertThat(missingExplicit.status()).isEqualTo(400);
        assertThat(missingExplicit.error()).contains("has no class com.example.Nope");

        String noMain = rest.client.upload("/v1/jars", "jarfile", "b.jar", TestJars.jar(null, "com.example.Present"))
                .json().get("id").asText();
        RestTestClient.Answer none = rest.client.post("/v1/jars/" + noMain + "/run", "{}");
        assertThat(none.status()).isEqualTo(400);
        assertThat(none.error()).contains("no Main-Class").contains("entryClass");
        assertThat(runs).isEmpty();
    }

    @Test
    void runningAJarWithoutAConfiguredRunnerIsAnswered501() {
        try (RestTestCluster plain = new RestTestCluster(LocalCluster.builder().build(), dir.resolve("plain-jars"))) {
            String id = plain.client.upload("/v1/jars", "jarfile", "a.jar", TestJars.jar("com.example.A", "com.example.A"))
                    .json().get("id").asText();
            RestTestClient.Answer run = plain.client.post("/v1/jars/" + id + "/run", "");
            assertThat(run.status()).isEqualTo(501);
            assertThat(run.error()).contains("no jar runner");
        }
    }
}
