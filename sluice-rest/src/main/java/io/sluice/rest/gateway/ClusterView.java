package io.sluice.rest.gateway;

import io.sluice.protocol.DispatcherGateway;
import io.sluice.rest.ClusterOverview;
import java.util.List;

/**
 * What a {@link DispatcherRestBackend} needs of the cluster it serves: which Dispatcher to ask, the
 * task executors with their slots, and who leads. Implemented for a {@code LocalCluster} in this
 * process ({@code local.LocalClusterBackend}) and for a job manager process whose task executors
 * register over the network.
 *
 * <p>Threading: any thread (REST request threads); every method answers from memory and never
 * blocks.
 */
public interface ClusterView {

    /**
     * The Dispatcher to ask: the leader's (in this process, or a remote gateway to it), or one that
     * answers as a standby. Throws {@link io.sluice.rest.RestException} (503) when there is none to ask.
     */
    DispatcherGateway dispatcher();

    /** Every task executor with its slots, in a stable order. */
    List<ClusterOverview.TaskExecutorInfo> taskExecutors();

    /** The job manager that leads the dispatcher, as the HA services name it. */
    ClusterOverview.Leader leader();
}
