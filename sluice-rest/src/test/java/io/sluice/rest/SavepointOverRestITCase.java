package io.sluice.rest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.cluster.LocalCluster;
import io.sluice.config.Configuration;
import io.sluice.examples.InjectedFailures;
import io.sluice.graph.JobId;
import io.sluice.storage.s3.S3Options;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.gaul.s3proxy.AuthenticationType;
import org.gaul.s3proxy.S3Proxy;
import org.jclouds.ContextBuilder;
import org.jclouds.blobstore.BlobStoreContext;
import org.jclouds.blobstore.domain.StorageType;
import org.jclouds.blobstore.options.ListContainerOptions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Savepoints over HTTP on a real {@link LocalCluster}, into a local directory and into S3 (S3Proxy in this JVM):
 * {@code POST /v1/jobs/{jobId}/savepoints} writes one (its files counted in storage) and {@code GET} lists it,
 * {@code POST /v1/jobs/{jobId}/stop} takes another and the job ends CANCELED, a new job started from the
 * savepoint restores it; every answer matches the OpenAPI document's schema; bad requests answer 400, an
 * unknown job 404, an ended job 409.
 */
class SavepointOverRestITCase {
    private static final String ACCESS_KEY = "sluice-access";
    private static final String SECRET_KEY = "sluice-secret";
    private static final String BUCKET = "bucket";

    enum Storage { LOCAL, S3 }

    @org.junit.jupiter.api.io.TempDir
    Path dir;
    private BlobStoreContext s3Context;
    private S3Proxy s3;
    private RestTestCluster rest;
    private Storage storage;
    private final OpenApiSchemas openApi = new OpenApiSchemas();

    private void start(Storage storage) throws Exception {
        this.storage = storage;
        Configuration configuration = storage == Storage.S3 ? startS3() : new Configuration();
        rest = new RestTestCluster(LocalCluster.builder().configuration(configuration).build(), dir.resolve("jars"));
    }

    private Configuration startS3() throws Exception {
        s3Context = ContextBuilder.newBuilder("transient-nio2").credentials("identity", "credential")
                .build(BlobStoreContext.class);
        s3 = S3Proxy.builder().blobStore(s3Context.getBlobStore()).endpoint(URI.create("http://127.0.0.1:0"))
                .awsAuthentication(AuthenticationType.AWS_V2_OR_V4, ACCESS_KEY, SECRET_KEY)
                .ignoreUnknownHeaders(true).build();
        s3.start();
        await("S3Proxy to start").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(5))
                .until(() -> "STARTED".equals(s3.getState()));
        s3Context.getBlobStore().createContainerInLocation(null, BUCKET);
        return new Configuration()
                .set(S3Options.ENDPOINT, "http://127.0.0.1:" + s3.getPort())
                .set(S3Options.REGION, "us-east-1")
                .set(S3Options.PATH_STYLE_ACCESS, true)
                .set(S3Options.ACCESS_KEY, ACCESS_KEY)
                .set(S3Options.SECRET_KEY, SECRET_KEY);
    }

    @AfterEach
    void stop() throws Exception {
        if (rest != null) {
            rest.close();
        }
        if (s3 != null) {
            s3.stop();
            s3Context.close();
        }
    }

    private String checkpointDir() {
        return storage == Storage.S3 ? "s3://" + BUCKET + "/checkpoints" : dir.resolve("cp").toString();
    }

    private String savepointDir() {
        return storage == Storage.S3 ? "s3://" + BUCKET + "/savepoints" : dir.resolve("savepoints").toString();
    }

    /** The names of the files (local) or objects (S3) of the savepoint at {@code path}, read from storage directly. */
    private List<String> savepointFiles(String path) throws Exception {
        String name = path.substring(path.lastIndexOf('/') + 1);
        List<String> names = new ArrayList<>();
        if (storage == Storage.S3) {
            ListContainerOptions options = ListContainerOptions.Builder.prefix("savepoints/" + name + "/").recursive();
            s3Context.getBlobStore().list(BUCKET, options).stream().filter(m -> m.getType() == StorageType.BLOB)
                    .forEach(m -> names.add(m.getName().substring(m.getName().lastIndexOf('/') + 1)));
        } else {
            try (var files = Files.list(dir.resolve("savepoints").resolve(name))) {
                files.forEach(f -> names.add(f.getFileName().toString()));
            }
        }
        names.sort(null);
        return names;
    }

    private JsonNode json(String path) {
        RestTestClient.Answer a = rest.client.get(path);
        assertThat(a.status()).as(a.body()).isEqualTo(200);
        return a.json();
    }

    private JsonNode schema(String name) {
        return openApi.document.path("components").path("schemas").path(name);
    }

    private JobId runUntilCheckpointed(String restoreFrom) throws Exception {
        var graph = TestJobs.counting("savepointed", 10_000_000, 2_000, checkpointDir(), InjectedFailures.none());
        JobId job = restoreFrom == null ? rest.cluster.submit(graph) : rest.cluster.submit(graph, restoreFrom);
        await().atMost(Duration.ofSeconds(60)).until(() -> json("/v1/jobs/" + job.value() + "/checkpoints")
                .get("completed").asInt() >= 1);
        return job;
    }

    @ParameterizedTest
    @EnumSource(Storage.class)
    void aSavepointIsTakenListedAndRestoredAndAStopTakesOneAndCancels(Storage storage) throws Exception {
        start(storage);
        JobId job = runUntilCheckpointed(null);
        String savepoints = "/v1/jobs/" + job.value() + "/savepoints";

        RestTestClient.Answer taken = rest.client.post(savepoints, "{\"directory\": \"" + savepointDir() + "\"}");
        assertThat(taken.status()).as(taken.body()).isEqualTo(201);
        openApi.assertMatches(taken.json(), schema("Savepoint"), "POST savepoints");
        String path = taken.json().get("path").asText();
        assertThat(path).contains("/savepoints/savepoint-" + job.value().substring(0, 6) + "-");
        assertThat(taken.json().get("jobId").asText()).isEqualTo(job.value());
        List<String> files = savepointFiles(path);
        assertThat(files).contains("_metadata").allSatisfy(f -> assertThat(f).matches("_metadata|\\d+-\\d+\\.state"));
        System.out.println(storage + " savepoint " + path + ": " + files);

        JsonNode listed = json(savepoints);
        openApi.assertMatches(listed, schema("Savepoints"), "GET savepoints");
        assertThat(listed.get("savepoints")).hasSize(1);
        assertThat(listed.get("savepoints").get(0)).isEqualTo(taken.json());

        RestTestClient.Answer stopped = rest.client.post("/v1/jobs/" + job.value() + "/stop", "");
        assertThat(stopped.status()).as(stopped.body()).isEqualTo(200);
        openApi.assertMatches(stopped.json(), schema("Stop"), "POST stop");
        String stopPath = stopped.json().get("savepoint").get("path").asText();
        assertThat(stopPath).as("the default directory").startsWith(storage == Storage.S3
                ? checkpointDir() + "/savepoints/savepoint-" : dir.resolve("cp").resolve("savepoints").toUri().toString());
        await().atMost(Duration.ofSeconds(30)).until(() -> json("/v1/jobs/" + job.value()).get("status").asText()
                .equals("CANCELED"));
        assertThat(json(savepoints).get("savepoints")).hasSize(2);
        assertThat(json(savepoints).get("savepoints").get(0).get("path").asText()).as("newest first")
                .isEqualTo(stopPath);

        RestTestClient.Answer ended = rest.client.post(savepoints, "");
        assertThat(ended.status()).as(ended.body()).isEqualTo(409);
        assertThat(ended.error()).contains("has ended (CANCELED)");

        JobId restored = runUntilCheckpointed(path);
        long savepointId = taken.json().get("id").asLong();
        assertThat(json("/v1/jobs/" + restored.value() + "/checkpoints").get("restoredId").asLong())
                .as("restored from the savepoint").isEqualTo(savepointId);
        assertThat(json("/v1/jobs/" + restored.value()).get("status").asText()).isEqualTo("RUNNING");
        assertThat(savepointFiles(path)).as("restoring leaves the savepoint as it was").isEqualTo(files);
        rest.client.post("/v1/jobs/" + restored.value() + "/cancel", "");
    }

    @ParameterizedTest
    @EnumSource(value = Storage.class, names = "LOCAL")
    void badRequestsAnswer400UnknownJobs404AndAFailedSavepoint409WithTheJobRunning(Storage storage) throws Exception {
        start(storage);
        JobId job = runUntilCheckpointed(null);
        String savepoints = "/v1/jobs/" + job.value() + "/savepoints";
        assertThat(rest.client.post(savepoints, "{\"directory\": ").status()).isEqualTo(400);
        assertThat(rest.client.post(savepoints, "{\"dir\": \"/tmp\"}").status()).isEqualTo(400);
        RestTestClient.Answer blank = rest.client.post(savepoints, "{\"directory\": \"  \"}");
        assertThat(blank.status()).isEqualTo(400);
        assertThat(blank.error()).contains("directory must be a location");
        assertThat(rest.client.post("/v1/jobs/not-a-job/savepoints", "").status()).isEqualTo(400);
        RestTestClient.Answer unknown = rest.client.post("/v1/jobs/" + JobId.generate().value() + "/stop", "");
        assertThat(unknown.status()).as(unknown.body()).isEqualTo(404);

        Path file = Files.writeString(dir.resolve("a file"), "not a directory");
        RestTestClient.Answer failed = rest.client.post("/v1/jobs/" + job.value() + "/stop",
                "{\"directory\": \"" + file.resolve("sub") + "\"}");
        assertThat(failed.status()).as(failed.body()).isEqualTo(409);
        assertThat(failed.error()).contains("Savepoint of job " + job.value()).contains("could not be written");
        assertThat(json("/v1/jobs/" + job.value()).get("status").asText()).as("a failed stop leaves the job running")
                .isEqualTo("RUNNING");
        assertThat(json(savepoints).get("savepoints")).isEmpty();
    }
}
