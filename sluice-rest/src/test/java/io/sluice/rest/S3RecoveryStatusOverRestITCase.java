package io.sluice.rest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.cluster.LocalCluster;
import io.sluice.config.Configuration;
import io.sluice.examples.InjectedFailures;
import io.sluice.graph.JobId;
import io.sluice.jobmaster.RecoveryBackoff;
import io.sluice.storage.s3.S3Options;
import io.sluice.storage.s3.testing.TcpFaultProxy;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import org.gaul.s3proxy.AuthenticationType;
import org.gaul.s3proxy.S3Proxy;
import org.jclouds.ContextBuilder;
import org.jclouds.blobstore.BlobStoreContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The same as {@link RecoveryStatusOverRestITCase} on S3: checkpoints in {@code s3://bucket/checkpoints}
 * on S3Proxy (in this JVM), reached through a {@link TcpFaultProxy} that refuses connections while a
 * job manager takes the job over. The REST job status says INITIALIZING, the attempt count and the
 * S3 error, then RUNNING once the proxy heals.
 */
class S3RecoveryStatusOverRestITCase {
    private static final String ACCESS_KEY = "sluice-access";
    private static final String SECRET_KEY = "sluice-secret";

    @TempDir
    Path dir;
    private BlobStoreContext s3Context;
    private S3Proxy s3;
    private TcpFaultProxy proxy;
    private RestTestCluster rest;

    @BeforeEach
    void start() throws Exception {
        s3Context = ContextBuilder.newBuilder("transient-nio2").credentials("identity", "credential")
                .build(BlobStoreContext.class);
        s3 = S3Proxy.builder().blobStore(s3Context.getBlobStore()).endpoint(URI.create("http://127.0.0.1:0"))
                .awsAuthentication(AuthenticationType.AWS_V2_OR_V4, ACCESS_KEY, SECRET_KEY)
                .ignoreUnknownHeaders(true).build();
        s3.start();
        await("S3Proxy to start").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(5))
                .until(() -> "STARTED".equals(s3.getState()));
        s3Context.getBlobStore().createContainerInLocation(null, "bucket");
        proxy = new TcpFaultProxy("127.0.0.1", s3.getPort());
        Configuration s3Client = new Configuration()
                .set(S3Options.ENDPOINT, proxy.httpEndpoint())
                .set(S3Options.REGION, "us-east-1")
                .set(S3Options.PATH_STYLE_ACCESS, true)
                .set(S3Options.ACCESS_KEY, ACCESS_KEY)
                .set(S3Options.SECRET_KEY, SECRET_KEY)
                .set(S3Options.CONNECT_TIMEOUT, Duration.ofSeconds(1))
                .set(S3Options.API_CALL_ATTEMPT_TIMEOUT, Duration.ofSeconds(2))
                .set(S3Options.API_CALL_TIMEOUT, Duration.ofSeconds(10))
                .set(S3Options.MAX_RETRIES, 2)
                .set(S3Options.RETRY_BASE_DELAY, Duration.ofMillis(20))
                .set(S3Options.RETRY_MAX_DELAY, Duration.ofMillis(100));
        LocalCluster cluster = LocalCluster.builder().haDirectory(dir.resolve("ha")).configuration(s3Client)
                .recoveryBackoff(new RecoveryBackoff(Duration.ofMillis(20), Duration.ofMillis(200), 2.0, 0.2))
                .build();
        rest = new RestTestCluster(cluster, dir.resolve("jars"));
    }

    @AfterEach
    void stop() throws Exception {
        proxy.heal();
        rest.close();
        proxy.close();
        s3.stop();
        s3Context.close();
    }

    @Test
    void s3RefusingConnectionsDuringTakeover_statusShowsInitializingWithAttemptsAndTheErrorThenRunningAfterHeal()
            throws Exception {
        LocalCluster cluster = rest.cluster;
        RestTestClient client = rest.client;
        JobId id = cluster.submit(TestJobs.counting("s3 job", 5_000_000, 5_000, "s3://bucket/checkpoints",
                InjectedFailures.none()));
        String path = "/v1/jobs/" + id;
        await().atMost(Duration.ofSeconds(30)).until(() -> client.get(path + "/checkpoints").json().get("completed").asLong() >= 2);
        LocalCluster.JobManager standby = cluster.startJobManager();
        proxy.refuseConnections();
        cluster.stopJobManager(cluster.jobManagers().get(0));
        await().atMost(Duration.ofSeconds(10)).until(() -> standby.dispatcher().isLeader());

        await().atMost(Duration.ofSeconds(60)).until(() -> {
            JsonNode d = client.get(path).json();
            return d.get("status").asText().equals("INITIALIZING") && d.get("recovery").get("attempt").asInt() >= 3;
        });
        for (int i = 0; i < 100; i++) {
            RestTestClient.Answer a = client.get(path);
            assertThat(a.status()).isEqualTo(200);
            assertThat(a.json().get("status").asText()).isEqualTo("INITIALIZING");
            assertThat(a.json().get("recovery").get("attempt").asInt()).isGreaterThanOrEqualTo(3);
            assertThat(a.json().get("recovery").get("lastError").asText()).contains("s3://bucket/checkpoints")
                    .containsIgnoringCase("connect");
        }
        System.out.println("S3 refusing: " + client.get(path).json().get("recovery"));

        proxy.heal();
        await().atMost(Duration.ofSeconds(60)).until(() -> client.get(path).json().get("status").asText().equals("RUNNING"));
        assertThat(client.post(path + "/cancel", "").status()).isEqualTo(202);
        await().atMost(Duration.ofSeconds(30)).until(() -> client.get(path).json().get("status").asText().equals("CANCELED"));
    }
}
