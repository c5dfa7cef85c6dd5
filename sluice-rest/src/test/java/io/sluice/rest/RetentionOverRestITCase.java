package io.sluice.rest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.cluster.LocalCluster;
import io.sluice.config.CheckpointingOptions;
import io.sluice.config.Configuration;
import io.sluice.examples.InjectedFailures;
import io.sluice.graph.JobId;
import io.sluice.rest.jars.JarRunner;
import io.sluice.storage.s3.S3Options;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Stream;
import org.gaul.s3proxy.AuthenticationType;
import org.gaul.s3proxy.S3Proxy;
import org.jclouds.ContextBuilder;
import org.jclouds.blobstore.BlobStoreContext;
import org.jclouds.blobstore.domain.StorageType;
import org.jclouds.blobstore.options.ListContainerOptions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Nothing left behind, over HTTP on a real {@link LocalCluster} with embedded HA, with checkpoints on
 * the local disk and on S3 (S3Proxy in this JVM): an ended job's retained checkpoints are deleted on
 * request ({@code DELETE /v1/jobs/{jobId}/checkpoints}, refused with 409 while the job runs) and expire
 * after {@code checkpoints.ended-job-retention}; uploaded jars are deleted on request
 * ({@code DELETE /v1/jars/{jarId}}, refused while a job run from them runs) and with their last job
 * ({@code rest.jars.delete-with-last-job}). Every check counts the files (or objects) left in storage
 * and in the HA directory.
 */
class RetentionOverRestITCase {
    private static final String ACCESS_KEY = "sluice-access";
    private static final String SECRET_KEY = "sluice-secret";
    private static final String BUCKET = "bucket";

    enum Storage { LOCAL, S3 }

    @TempDir
    Path dir;
    private BlobStoreContext s3Context;
    private S3Proxy s3;
    private RestTestCluster rest;
    private Storage storage;

    private void start(Storage storage, Duration retention, boolean deleteJarsWithLastJob) throws Exception {
        this.storage = storage;
        Configuration configuration = storage == Storage.S3 ? startS3() : new Configuration();
        configuration.set(CheckpointingOptions.ENDED_JOB_RETENTION, retention);
        LocalCluster cluster = LocalCluster.builder().haDirectory(dir.resolve("ha")).configuration(configuration).build();
        JarRunner counting = (file, jar, request) -> CompletableFuture.supplyAsync(() -> {
            try {
                return cluster.submit(TestJobs.counting(jar.name(), 10_000_000, 2_000, checkpointDir(),
                        InjectedFailures.none()));
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        rest = new RestTestCluster(cluster, dir.resolve("jars"), RestServerConfig.defaults(), counting,
                deleteJarsWithLastJob);
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

    /** Files (local) or objects (S3) under the job's checkpoint directory, read from storage directly. */
    private long checkpointFilesOf(JobId job) throws IOException {
        if (storage == Storage.S3) {
            // S3Proxy's in-memory store lists an object a running job is writing before its attributes are
            // set, and then throws IllegalArgumentException ("attribute 'user:user.content-md5' is not set",
            // seen in CI): list again until a listing completes.
            return await().atMost(Duration.ofSeconds(10)).ignoreExceptionsInstanceOf(IllegalArgumentException.class)
                    .until(() -> s3ObjectsOf(job), n -> true);
        }
        // A running job deletes the checkpoints its newer ones subsume: a walk of its directory can find a
        // checkpoint's directory gone before it is read (NoSuchFileException, seen here): walk again until a
        // walk completes.
        return await().atMost(Duration.ofSeconds(10)).ignoreExceptionsInstanceOf(UncheckedIOException.class)
                .until(() -> filesUnder(dir.resolve("cp").resolve(job.value())).size(), n -> true);
    }

    private long s3ObjectsOf(JobId job) {
        long n = 0;
        ListContainerOptions options = ListContainerOptions.Builder.prefix("checkpoints/" + job.value() + "/").recursive();
        for (var page = s3Context.getBlobStore().list(BUCKET, options); ; ) {
            n += page.stream().filter(m -> m.getType() == StorageType.BLOB).count();
            if (page.getNextMarker() == null) {
                return n;
            }
            page = s3Context.getBlobStore().list(BUCKET, options.afterMarker(page.getNextMarker()));
        }
    }

    /** For failure messages: every stored object or file under the checkpoint directory, and the job's checkpoints. */
    private String whatIsStored(JobId job) {
        StringBuilder out = new StringBuilder();
        try {
            if (storage == Storage.S3) {
                ListContainerOptions options = ListContainerOptions.Builder.recursive();
                for (var page = s3Context.getBlobStore().list(BUCKET, options); ; ) {
                    page.forEach(m -> out.append(m.getName()).append(' ').append(m.getType()).append(", "));
                    if (page.getNextMarker() == null) {
                        break;
                    }
                    page = s3Context.getBlobStore().list(BUCKET, options.afterMarker(page.getNextMarker()));
                }
            } else {
                filesUnder(dir.resolve("cp")).forEach(p -> out.append(dir.relativize(p)).append(", "));
            }
            out.append(" HA files ").append(haFilesOf(job));
            out.append("; checkpoints ").append(json("/v1/jobs/" + job.value() + "/checkpoints"));
        } catch (RuntimeException | IOException | AssertionError e) {
            out.append(" (listing failed: ").append(e).append(')');
        }
        return "stored: " + out;
    }

    private static List<Path> filesUnder(Path root) throws IOException {
        if (!Files.exists(root)) {
            return List.of();
        }
        try (Stream<Path> files = Files.walk(root)) {
            return files.filter(Files::isRegularFile).toList();
        }
    }

    /** The HA directory's files that belong to the job (pointers, id counter, graph, jar), besides its result. */
    private List<Path> haFilesOf(JobId job) throws IOException {
        return filesUnder(dir.resolve("ha")).stream().filter(p -> p.toString().contains(job.value()))
                .filter(p -> !p.getParent().getFileName().toString().equals("jobresults")).toList();
    }

    private JsonNode json(String path) {
        RestTestClient.Answer a = rest.client.get(path);
        assertThat(a.status()).as(a.body()).isEqualTo(200);
        return a.json();
    }

    private JobId runUntilCheckpointed() throws Exception {
        JobId job = submit();
        awaitCheckpointed(job);
        return job;
    }

    private JobId submit() throws Exception {
        return rest.cluster.submit(TestJobs.counting("retained", 10_000_000, 2_000, checkpointDir(),
                InjectedFailures.none()));
    }

    private void awaitCheckpointed(JobId job) {
        await().atMost(Duration.ofSeconds(60)).until(() -> json("/v1/jobs/" + job.value() + "/checkpoints")
                .get("completed").asInt() >= 3);
    }

    private void cancel(JobId job) {
        assertThat(rest.client.post("/v1/jobs/" + job.value() + "/cancel", "").status()).isEqualTo(202);
        await().atMost(Duration.ofSeconds(30)).until(() -> json("/v1/jobs/" + job.value()).get("status").asText()
                .equals("CANCELED"));
    }

    @ParameterizedTest
    @EnumSource(Storage.class)
    void anEndedJobsCheckpointsAreDeletedOnRequestAndNeverWhileItRuns(Storage storage) throws Exception {
        start(storage, Duration.ZERO, false);
        JobId job = runUntilCheckpointed();
        String path = "/v1/jobs/" + job.value() + "/checkpoints";

        RestTestClient.Answer refused = rest.client.method("DELETE", path);
        assertThat(refused.status()).as(refused.body()).isEqualTo(409);
        assertThat(refused.error()).contains("RUNNING").contains("Cancel it first");
        assertThat(checkpointFilesOf(job)).isPositive();

        cancel(job);
        // Failed once in CI on S3 (0 objects right after the cancel), not reproduced in 20 runs under load: the
        // message says what storage and the job held then.
        assertThat(checkpointFilesOf(job)).as(() -> "retained on cancel by default; " + whatIsStored(job))
                .isPositive();
        assertThat(haFilesOf(job)).as("its HA checkpoint pointers").isNotEmpty();

        RestTestClient.Answer deleted = rest.client.method("DELETE", path);
        assertThat(deleted.status()).as(deleted.body()).isEqualTo(200);
        assertThat(deleted.json().get("jobId").asText()).isEqualTo(job.value());
        assertThat(deleted.json().get("deletedCheckpointIds")).isNotEmpty();
        assertThat(deleted.json().get("location").asText()).isEqualTo(checkpointDir());
        assertThat(checkpointFilesOf(job)).as("no file of the deleted checkpoints is left").isZero();
        assertThat(haFilesOf(job)).as("no pointer or counter is left").isEmpty();
        assertThat(json("/v1/jobs/" + job.value()).get("status").asText()).isEqualTo("CANCELED");

        RestTestClient.Answer again = rest.client.method("DELETE", path);
        assertThat(again.status()).as("idempotent").isEqualTo(200);
        assertThat(again.json().get("deletedCheckpointIds")).isEmpty();
        assertThat(rest.client.method("DELETE", "/v1/jobs/" + JobId.generate().value() + "/checkpoints").status())
                .isEqualTo(404);
    }

    @ParameterizedTest
    @EnumSource(Storage.class)
    void theRetainedCheckpointsOfAnEndedJobExpire(Storage storage) throws Exception {
        start(storage, Duration.ofSeconds(5), false); // long enough to count the files right after the cancel on a loaded machine
        // Both run (and checkpoint) at once: waiting for one and then the other would only take longer.
        JobId cancelled = submit();
        JobId running = submit();
        awaitCheckpointed(cancelled);
        awaitCheckpointed(running);
        cancel(cancelled);
        assertThat(checkpointFilesOf(cancelled)).isPositive();

        await().atMost(Duration.ofSeconds(60)).until(() -> checkpointFilesOf(cancelled) == 0);
        assertThat(haFilesOf(cancelled)).isEmpty();
        assertThat(checkpointFilesOf(running)).as("a running job's checkpoints are never expired").isPositive();
        assertThat(json("/v1/jobs/" + running.value()).get("status").asText()).isEqualTo("RUNNING");
    }

    @Test
    void jarsAreListedAndDeletedButNotWhileAJobRunFromThemRuns() throws Exception {
        start(Storage.LOCAL, Duration.ZERO, false);
        String jarId = rest.client.upload("/v1/jars", "jarfile", "counting.jar",
                TestJars.jar("com.example.CountingJob", "com.example.CountingJob")).json().get("id").asText();
        RestTestClient.Answer run = rest.client.post("/v1/jars/" + jarId + "/run", "");
        assertThat(run.status()).as(run.body()).isEqualTo(202);
        String jobId = run.json().get("jobId").asText();
        assertThat(json("/v1/jars").get("jars")).hasSize(1);

        RestTestClient.Answer refused = rest.client.method("DELETE", "/v1/jars/" + jarId);
        assertThat(refused.status()).as(refused.body()).isEqualTo(409);
        assertThat(refused.error()).contains(jobId).contains("cancel");
        assertThat(filesUnder(dir.resolve("jars"))).as("the jar and its name").hasSize(2);

        cancel(JobId.of(jobId));
        RestTestClient.Answer deleted = rest.client.method("DELETE", "/v1/jars/" + jarId);
        assertThat(deleted.status()).as(deleted.body()).isEqualTo(200);
        assertThat(deleted.json().get("id").asText()).isEqualTo(jarId);
        assertThat(filesUnder(dir.resolve("jars"))).as("no file of the deleted jar").isEmpty();
        assertThat(json("/v1/jars").get("jars")).isEmpty();
        assertThat(rest.client.method("DELETE", "/v1/jars/" + jarId).status()).isEqualTo(404);
        assertThat(rest.client.post("/v1/jars/" + jarId + "/run", "").status()).isEqualTo(404);
    }

    @Test
    void withDeleteWithLastJobAJarGoesOnceEveryJobRunFromItHasEnded() throws Exception {
        start(Storage.LOCAL, Duration.ZERO, true);
        String jarId = rest.client.upload("/v1/jars", "jarfile", "counting.jar",
                TestJars.jar("com.example.CountingJob", "com.example.CountingJob")).json().get("id").asText();
        String first = rest.client.post("/v1/jars/" + jarId + "/run", "").json().get("jobId").asText();
        String second = rest.client.post("/v1/jars/" + jarId + "/run", "").json().get("jobId").asText();

        cancel(JobId.of(first));
        assertThat(json("/v1/jars").get("jars")).as("the second job still runs").hasSize(1);
        assertThat(filesUnder(dir.resolve("jars"))).as("the jar and its name").hasSize(2);

        cancel(JobId.of(second));
        await().atMost(Duration.ofSeconds(30)).until(() -> filesUnder(dir.resolve("jars")).isEmpty());
        assertThat(json("/v1/jars").get("jars")).isEmpty();
    }
}
