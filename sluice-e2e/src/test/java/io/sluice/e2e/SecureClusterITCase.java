package io.sluice.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.cluster.membership.TaskExecutorRegistryGateway;
import io.sluice.config.Configuration;
import io.sluice.config.SecurityOptions.TlsProvider;
import io.sluice.e2e.SluiceCluster.CommandResult;
import io.sluice.e2e.SluiceCluster.Host;
import io.sluice.e2e.SluiceCluster.SluiceProcess;
import io.sluice.graph.JobId;
import io.sluice.network.ChannelKey;
import io.sluice.network.LocalChannel;
import io.sluice.network.netty.NettyShuffleEnvironment;
import io.sluice.rpc.remote.RpcAddress;
import io.sluice.rpc.remote.RpcService;
import io.sluice.security.tls.InternalTls;
import io.sluice.security.tls.TlsIdentity;
import io.sluice.protocol.TaskExecutorGateway;
import io.sluice.testing.tls.TestCertificates;
import io.sluice.testing.tls.TestCertificates.Authority;
import io.sluice.testing.tls.TestCertificates.PemFiles;
import io.sluice.testing.zookeeper.TestingZooKeeper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A cluster with TLS everywhere, as real processes: one {@code sluice jobmanager} (HTTPS REST with a
 * token, mutual TLS on RPC) and two {@code sluice taskmanager}s of one slot each (mutual TLS on RPC
 * and on the data connections between them), certificates made by the test. The keyed counting
 * example is submitted with {@code sluice run} over HTTPS ({@code --ca-file}, {@code --token-file});
 * while it runs, clients in this JVM without the cluster's certificate (plain TCP, or a certificate
 * of another CA) try the job manager's and a task manager's RPC port (the unfenced
 * {@code leaderSession()} and a task executor call) and a task manager's data port (asking for a
 * channel of the running job): each is refused, and the job finishes with exact counts and no
 * restart. The CLI without the CA or without the token is refused, saying what to pass.
 */
class SecureClusterITCase {
    private static final Pattern ADVERTISED = Pattern.compile("Advertised as sluice-jm://([^/\\s]+)/");
    private static final Pattern TASK_MANAGER = Pattern.compile("RPC on (\\S+), data on (\\S+);");
    private static final int KEYS = 8;
    private static final long RECORDS = 30_000;
    private static final Duration WAIT = Duration.ofSeconds(90);
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    private TestingServer zooKeeper;
    private SluiceCluster processes;
    private final List<AutoCloseable> clients = new ArrayList<>();

    @BeforeEach
    void startZooKeeper() throws Exception {
        zooKeeper = TestingZooKeeper.start(dir);
    }

    @AfterEach
    void stopAll() throws Exception {
        for (AutoCloseable c : clients) {
            c.close();
        }
        if (processes != null) {
            processes.close();
        }
        zooKeeper.close();
    }

    @Test
    void foreignClientsAreRefusedOnEveryPortWhileTheJobRunsOnToExactCounts() throws Exception {
        Authority ca = TestCertificates.authority("Sluice e2e cluster CA");
        PemFiles jm = ca.issue("jobmanager", dir.resolve("tls"));
        PemFiles tm = ca.issue("taskmanager", dir.resolve("tls"));
        PemFiles rest = ca.issue("localhost", dir.resolve("rest-tls"));
        Path token = Files.writeString(dir.resolve("rest-token"), "e2e-" + java.util.UUID.randomUUID() + "\n");
        Path caFile = ca.writeCertificate(dir);

        Map<String, String> common = new LinkedHashMap<>();
        common.put("high-availability.type", "zookeeper");
        common.put("high-availability.zookeeper.quorum", zooKeeper.getConnectString());
        common.put("high-availability.cluster-id", "secure-e2e");
        common.put("high-availability.storage-dir", dir.resolve("ha-storage").toString());
        processes = new SluiceCluster(dir.resolve("run"), common);
        Map<String, String> jmSettings = new LinkedHashMap<>(jm.internalTlsSettings());
        jmSettings.put("rest.tls.enabled", "true");
        jmSettings.put("rest.tls.key", rest.key().toString());
        jmSettings.put("rest.tls.certificate", rest.certificate().toString());
        jmSettings.put("rest.auth.token-file", token.toString());
        SluiceProcess jobManager = processes.startJobManager(Host.MACHINE, jmSettings);
        try {
            String url = jobManager.restUrl();
            assertThat(url).startsWith("https://");
            HttpClient https = HttpClient.newBuilder().sslContext(new TlsIdentity(null, List.of(),
                    List.of(ca.certificate())).jdkContext()).build();
            List<SluiceProcess> taskManagers = List.of(processes.startTaskManager(Host.MACHINE, 1, tm.internalTlsSettings()),
                    processes.startTaskManager(Host.MACHINE, 1, tm.internalTlsSettings()));
            await().atMost(WAIT).ignoreExceptionsInstanceOf(HttpTimeoutException.class).until(() -> get(https, url, "/v1/overview", token).map(o -> o.path("slotsTotal").asInt())
                    .orElse(-1) == 2);

            Path output = dir.resolve("counts");
            CommandResult run = processes.submitJar(SluiceCluster.examplesJar(), url, List.of("--ca-file",
                    caFile.toString(), "--token-file", token.toString(), "--parallelism", "2", "-D",
                    "checkpoints.interval=300 ms", "-D", "checkpoints.dir=" + dir.resolve("checkpoints")),
                    List.of("--records", Long.toString(RECORDS), "--keys", Integer.toString(KEYS), "--rate", "2000",
                            "--output", output.toString()));
            assertThat(run.exitCode()).as("sluice run over HTTPS:\n" + run.output()).isZero();
            String jobId = run.jobId();
            await().atMost(WAIT).ignoreExceptionsInstanceOf(HttpTimeoutException.class).until(() -> status(https, url, jobId, token).filter("RUNNING"::equals).isPresent());

            RpcAddress jobManagerRpc = rpcAddress(jobManager.output(), ADVERTISED);
            Matcher tmLog = TASK_MANAGER.matcher(taskManagers.get(0).log());
            assertThat(tmLog.find()).as("task manager log:\n" + taskManagers.get(0).log()).isTrue();
            RpcAddress taskManagerRpc = RpcAddress.parse(tmLog.group(1));
            String taskManagerData = tmLog.group(2);

            InternalTls foreign = InternalTls.of(withTrust(TestCertificates.authority("Some other CA")
                    .issue("intruder", dir.resolve("intruder")).identity(), ca), TlsProvider.AUTO);
            for (InternalTls intruderTls : java.util.Arrays.asList(null, foreign)) {
                String who = intruderTls == null ? "a plain-TCP client" : "a client with another CA's certificate";
                RpcService intruder = closeLater(RpcService.builder().bind("127.0.0.1", 0).configuration(new Configuration())
                        .tls(intruderTls).start());
                TaskExecutorRegistryGateway registry = intruder.remoteGateway(jobManagerRpc,
                        TaskExecutorRegistryGateway.ENDPOINT, TaskExecutorRegistryGateway.class, null, Map.of());
                assertThatThrownBy(() -> registry.leaderSession().get(30, TimeUnit.SECONDS))
                        .as(who + " asks the job manager for its leader session").isInstanceOf(ExecutionException.class);
                TaskExecutorGateway taskExecutor = intruder.remoteGateway(taskManagerRpc, "taskexecutor",
                        TaskExecutorGateway.class, null, Map.of());
                assertThatThrownBy(() -> taskExecutor.requestTaskMetrics(JobId.of(jobId)).get(30, TimeUnit.SECONDS))
                        .as(who + " calls a task manager").isInstanceOf(ExecutionException.class);

                NettyShuffleEnvironment data = closeLater(NettyShuffleEnvironment.start("intruder", "127.0.0.1",
                        "127.0.0.1", 0, 2, 32 * 1024, 1, intruderTls));
                LocalChannel stolen = data.remoteInputChannel(new ChannelKey(JobId.of(jobId), 1, 1, 0, 1), taskManagerData);
                await().atMost(WAIT).until(stolen::isReleased);
                assertThat(data.metrics().buffersReceived()).as(who + " reads no data").isZero();
                System.out.println("SecureClusterITCase: " + who + " was refused: " + stolen.releaseCause().getMessage());
            }
            assertThat(status(https, url, jobId, token)).as("the job, after the intruders").contains("RUNNING");
            assertThat(jobManager.log()).contains("Refused a connection from");
            assertThat(taskManagers.get(0).log()).contains("Refused a connection from").contains("to the data port");

            CommandResult untrusted = SluiceCluster.sluice(dir, List.of("list", "--cluster", url, "--token-file",
                    token.toString()));
            assertThat(untrusted.exitCode()).as(untrusted.output()).isEqualTo(69);
            assertThat(untrusted.output()).contains("presented a certificate this client does not trust")
                    .contains("--ca-file");
            CommandResult noToken = SluiceCluster.sluice(dir, List.of("list", "--cluster", url, "--ca-file",
                    caFile.toString()));
            assertThat(noToken.exitCode()).as(noToken.output()).isEqualTo(77);
            CommandResult listed = SluiceCluster.sluice(dir, List.of("list", "--cluster", url, "--ca-file",
                    caFile.toString(), "--token-file", token.toString()));
            assertThat(listed.exitCode()).as(listed.output()).isZero();
            assertThat(listed.output()).contains(jobId);
            System.out.println("SecureClusterITCase: sluice list without --ca-file printed: " + untrusted.output().strip());

            await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(200))
                    .ignoreExceptionsInstanceOf(HttpTimeoutException.class)
                    .until(() -> status(https, url, jobId, token).filter("FINISHED"::equals).isPresent());
            KeyedCounts.assertExact(output, RECORDS, KEYS);
            JsonNode job = get(https, url, "/v1/jobs/" + jobId, token).orElseThrow();
            assertThat(job.path("restarts").path("count").asInt()).as("restarts of the job: %s", job.path("restarts"))
                    .isZero();
        } catch (Throwable t) {
            throw new AssertionError(t + processes.diagnostics(), t);
        }
    }

    private static TlsIdentity withTrust(TlsIdentity identity, Authority trusted) {
        return new TlsIdentity(identity.key(), identity.chain(), List.of(trusted.certificate()));
    }

    private <T extends AutoCloseable> T closeLater(T resource) {
        clients.add(resource);
        return resource;
    }

    private static RpcAddress rpcAddress(String output, Pattern pattern) {
        Matcher m = pattern.matcher(output);
        assertThat(m.find()).as("an RPC address in:\n" + output).isTrue();
        return RpcAddress.parse(m.group(1));
    }

    private static Optional<String> status(HttpClient https, String url, String jobId, Path token) throws Exception {
        return get(https, url, "/v1/jobs/" + jobId, token).map(j -> j.path("status").asText());
    }

    private static Optional<JsonNode> get(HttpClient https, String url, String path, Path token) throws Exception {
        HttpResponse<String> r = https.send(HttpRequest.newBuilder(URI.create(url + path)).timeout(Duration.ofSeconds(5))
                .header("Authorization", "Bearer " + Files.readString(token).strip()).build(),
                HttpResponse.BodyHandlers.ofString());
        return r.statusCode() == 200 ? Optional.of(JSON.readTree(r.body())) : Optional.empty();
    }
}
