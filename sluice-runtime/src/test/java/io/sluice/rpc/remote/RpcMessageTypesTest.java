package io.sluice.rpc.remote;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.cluster.membership.TaskExecutorRegistryGateway;
import io.sluice.dispatcher.DispatcherGateway;
import io.sluice.jobmaster.JobMasterGateway;
import io.sluice.taskexecutor.TaskExecutorGateway;
import java.util.Comparator;
import org.junit.jupiter.api.Test;

class RpcMessageTypesTest {
    @Test
    void printsTheAllowlistOfTheClustersGateways() {
        RpcMessageTypes types = new RpcMessageTypes();
        types.register(DispatcherGateway.class);
        types.register(JobMasterGateway.class);
        types.register(TaskExecutorGateway.class);
        types.register(TaskExecutorRegistryGateway.class);
        types.derived().stream().map(Class::getName).sorted().forEach(n -> System.out.println("derived " + n));
        types.openTypes().stream().map(Class::getName).sorted().forEach(n -> System.out.println("open " + n));
        assertThat(types.derived()).isNotEmpty();
    }
}
