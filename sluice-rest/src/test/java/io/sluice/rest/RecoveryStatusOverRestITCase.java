package io.sluice.rest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.cluster.LocalCluster;
import io.sluice.examples.InjectedFailures;
import io.sluice.graph.JobId;
import io.sluice.jobmaster.RecoveryBackoff;
import io.sluice.storage.FaultInjectingBlobStore;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The production failure Sluice exists for, seen through the REST API: a job manager takes over a
 * job while its checkpoint storage (local files) refuses connections. The job-status endpoint keeps
 * answering, INITIALIZING with the attempt count and the storage error, and the job goes RUNNING by
 * itself once storage heals.
 */
class RecoveryStatusOverRestITCase {
    @TempDir
    Path dir;
    private final AtomicReference<FaultInjectingBlobStore> faults = new AtomicReference<>();
    private RestTestCluster rest;

    @BeforeEach
    void start() {
        LocalCluster cluster = LocalCluster.builder().haDirectory(dir.resolve("ha"))
                .blobStoreDecorator(FaultInjectingBlobStore.capturingInto(faults))
                .recoveryBackoff(new RecoveryBackoff(Duration.ofMillis(20), Duration.ofMillis(200), 2.0, 0.2))
                .build();
        rest = new RestTestCluster(cluster, dir.resolve("jars"));
    }

    @AfterEach
    void stop() {
        if (faults.get() != null) {
            faults.get().heal();
        }
        rest.close();
    }

    @Test
    void refusedStorageDuringTakeover_statusShowsInitializingWithAttemptsAndTheErrorThenRunningAfterHeal() throws Exception {
        LocalCluster cluster = rest.cluster;
        RestTestClient client = rest.client;
        JobId id = cluster.submit(TestJobs.counting("recovering job", 5_000_000, 5_000, dir.resolve("checkpoints").toString(),
                InjectedFailures.none()));
        await().atMost(Duration.ofSeconds(30)).until(() ->
                client.get("/v1/jobs/" + id + "/checkpoints").json().get("completed").asLong() >= 2);
        LocalCluster.JobManager standby = cluster.startJobManager();
        faults.get().refuseConnections();
        cluster.stopJobManager(cluster.jobManagers().get(0));
        await().atMost(Duration.ofSeconds(10)).until(() -> standby.dispatcher().isLeader());

        String path = "/v1/jobs/" + id;
        await().atMost(Duration.ofSeconds(30)).until(() -> {
            JsonNode d = client.get(path).json();
            return d.get("status").asText().equals("INITIALIZING") && d.get("recovery").get("attempt").asInt() >= 3;
        });
        long slowestNanos = 0;
        for (int i = 0; i < 200; i++) {
            long t0 = System.nanoTime();
            RestTestClient.Answer a = client.get(path);
            slowestNanos = Math.max(slowestNanos, System.nanoTime() - t0);
            assertThat(a.status()).isEqualTo(200);
            JsonNode recovery = a.json().get("recovery");
            assertThat(a.json().get("status").asText()).isEqualTo("INITIALIZING");
            assertThat(recovery.get("attempt").asInt()).isGreaterThanOrEqualTo(3);
            assertThat(recovery.get("lastError").asText()).contains("Connection refused").contains("file://");
            assertThat(recovery.get("phase").asText()).isNotBlank();
            assertThat(recovery.has("nextRetryMillis")).isTrue();
            assertThat(recovery.get("events").isArray()).isTrue();
        }
        new OpenApiSchemas().assertAnswerMatches("GET", "/v1/jobs/{jobId}", 200, client.get(path).json());
        assertThat(client.get("/v1/jobs").json().get("jobs").get(0).get("status").asText()).isEqualTo("INITIALIZING");
        JsonNode overview = client.get("/v1/overview").json();
        assertThat(overview.get("leader").get("contenderId").asText()).isEqualTo(standby.id());
        assertThat(overview.get("jobs").get("initializing").asInt()).isEqualTo(1);
        System.out.printf("Local storage refusing: attempt %d, slowest of 200 REST status requests %.2f ms, last error: %s%n",
                client.get(path).json().get("recovery").get("attempt").asInt(), slowestNanos / 1e6,
                client.get(path).json().get("recovery").get("lastError").asText());

        faults.get().heal();
        await().atMost(Duration.ofSeconds(30)).until(() -> client.get(path).json().get("status").asText().equals("RUNNING"));
        JsonNode running = client.get(path).json();
        assertThat(running.get("transitions").findValuesAsText("status")).containsSubsequence("INITIALIZING", "RUNNING");
        JsonNode checkpoints = client.get(path + "/checkpoints").json();
        assertThat(checkpoints.get("restoredId").asLong()).as("restored from the checkpoint taken before the takeover")
                .isGreaterThanOrEqualTo(2);

        RestTestClient.Answer cancel = client.post(path + "/cancel", "");
        assertThat(cancel.status()).isEqualTo(202);
        await().atMost(Duration.ofSeconds(30)).until(() -> client.get(path).json().get("status").asText().equals("CANCELED"));
    }
}
