package io.sluice.chaos;

import io.sluice.cluster.LocalCluster;
import io.sluice.graph.JobId;
import io.sluice.ha.HighAvailabilityServices;
import java.util.List;

/**
 * The HA services a chaos run uses, and how the run takes leadership away on them. Each
 * {@link #open()} returns new services on the same durable state (directory or ZooKeeper
 * subtree), as a restarted process would.
 */
interface ChaosHa {
    String name();

    HighAvailabilityServices open() throws Exception;

    /** Takes the leadership of {@code job} away from whoever holds it; it is granted again (or to another contender). */
    void revoke(LocalCluster cluster, JobId job) throws Exception;

    /** The checkpoint pointers stored for {@code job}, read with fresh services or directly. */
    List<String> pointers(JobId job) throws Exception;
}
