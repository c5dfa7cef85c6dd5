package io.sluice.rpc.remote;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.cluster.membership.TaskExecutorRegistration;
import io.sluice.cluster.membership.TaskExecutorRegistryGateway;
import io.sluice.config.Configuration;
import io.sluice.protocol.DispatcherGateway;
import io.sluice.graph.JobGraph;
import io.sluice.graph.JobVertex;
import io.sluice.protocol.JobDetails;
import io.sluice.protocol.JobMasterGateway;
import io.sluice.protocol.TaskDeploymentDescriptor;
import io.sluice.protocol.TaskExecutorGateway;
import java.io.Serializable;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The RPC allowlist: derived from the gateway interfaces, it holds what the cluster's calls carry
 * and refuses a serializable class no gateway mentions, even one of Sluice's own packages (which
 * the earlier filter let through), and JDK classes outside the basic vocabulary.
 */
class RpcMessageTypesTest {
    /** Serializable, in an io.sluice package, but no gateway's argument or result. */
    record ForeignPayload(String command) implements Serializable {
    }

    private final LoopbackRpcServices services = new LoopbackRpcServices();

    @AfterEach
    void close() throws Exception {
        services.close();
    }

    @Test
    void theClustersGatewaysAllowWhatTheirCallsCarryAndNothingElse() {
        RpcMessageTypes types = new RpcMessageTypes();
        types.register(DispatcherGateway.class);
        types.register(JobMasterGateway.class);
        types.register(TaskExecutorGateway.class);
        types.register(TaskExecutorRegistryGateway.class);

        assertThat(types.derived()).contains(JobGraph.class, JobVertex.class, JobDetails.class,
                TaskDeploymentDescriptor.class, TaskExecutorRegistration.class);
        for (Class<?> c : List.of(JobGraph.class, TaskDeploymentDescriptor.class, JobDetails.class, String.class,
                java.util.ArrayList.class, java.util.UUID.class, JobVertex[].class,
                // a crash loop and stale checkpoints travel in job details and job lists (a standby forwards them)
                io.sluice.protocol.JobSummary.class, io.sluice.protocol.JobHealth.class,
                io.sluice.restart.CrashLoop.class, io.sluice.restart.CrashLoop.Kind.class)) {
            assertThat(types.allows(c)).as("allows %s", c.getName()).isTrue();
        }
        for (Class<?> c : List.of(ForeignPayload.class, PriorityQueue.class, java.text.DecimalFormat.class,
                io.sluice.cluster.LocalCluster.class, java.net.URL.class)) {
            assertThat(types.allows(c)).as("allows %s", c.getName()).isFalse();
        }
        System.out.println("RPC allowlist of the cluster's gateways: " + types.derived().stream().map(Class::getName)
                .sorted().toList() + "; abstract types open to their Sluice implementations: " + types.openTypes());
    }

    @Test
    void aCallCarryingAForeignSerializableClassIsRefusedNamingIt() throws Exception {
        RpcService server = services.start(new Configuration());
        RpcService client = services.start(new Configuration());
        server.expose("echo", EchoGateway.class, new TestingEchoGateway("b"), null);
        EchoGateway remote = client.remoteGateway(server.address(), "echo", EchoGateway.class, null, Map.of());

        assertThatThrownBy(() -> remote.typeOf(new ForeignPayload("rm -rf /")).get(10, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class).cause().isInstanceOf(RpcException.class)
                .hasMessageContaining("Cannot read the arguments of EchoGateway.typeOf")
                .hasMessageContaining("refused to read class " + ForeignPayload.class.getName())
                .hasMessageContaining("no argument or result type of the gateway interfaces");
        assertThatThrownBy(() -> remote.typeOf(new PriorityQueue<>(List.of(1, 2))).get(10, TimeUnit.SECONDS))
                .cause().hasMessageContaining("refused to read class java.util.PriorityQueue");
        assertThat(remote.echo("still served").get(10, TimeUnit.SECONDS)).isEqualTo("b:still served");
    }
}
