package io.sluice.chaos;

import io.sluice.cluster.LocalCluster;
import io.sluice.config.Configuration;
import io.sluice.config.HighAvailabilityOptions;
import io.sluice.graph.JobId;
import io.sluice.ha.HighAvailabilityServices;
import io.sluice.ha.loader.HighAvailabilityServicesLoader;
import io.sluice.ha.zookeeper.ZooKeeperHaOptions;
import io.sluice.ha.zookeeper.ZooKeeperHaServices;
import java.time.Duration;
import org.apache.curator.test.KillSession;
import java.util.List;

/**
 * ZooKeeper HA (a server the test started) under its own cluster id. Revocation expires the ZooKeeper
 * session of the job manager leading the job: it loses that job's and the dispatcher's leadership,
 * reconnects with a new session and rejoins.
 */
record ZooKeeperChaosHa(String connectString, String clusterId) implements ChaosHa {
    @Override
    public String name() {
        return "zookeeper";
    }

    @Override
    public HighAvailabilityServices open() throws Exception {
        return HighAvailabilityServicesLoader.load(new Configuration()
                .set(HighAvailabilityOptions.TYPE, HighAvailabilityServicesLoader.ZOOKEEPER)
                .set(ZooKeeperHaOptions.QUORUM, connectString)
                .set(ZooKeeperHaOptions.CLUSTER_ID, clusterId)
                .set(ZooKeeperHaOptions.SESSION_TIMEOUT, Duration.ofSeconds(10))
                .set(ZooKeeperHaOptions.CONNECTION_TIMEOUT, Duration.ofSeconds(5)));
    }

    @Override
    public void revoke(LocalCluster cluster, JobId job) throws Exception {
        ZooKeeperHaServices ha = (ZooKeeperHaServices) cluster.haServices();
        for (LocalCluster.JobManager jm : cluster.jobManagers()) {
            KillSession.kill(ha.contenderClient(jm.id()).getZookeeperClient().getZooKeeper());
        }
    }

    @Override
    public List<String> pointers(JobId job) throws Exception {
        try (ZooKeeperHaServices ha = (ZooKeeperHaServices) open()) {
            return ha.checkpointRecoveryFactory().pointerStore().checkpointIds(job).stream()
                    .map(String::valueOf).toList();
        }
    }
}
