package io.sluice.rest.local;

import io.sluice.cluster.LocalCluster;
import io.sluice.protocol.DispatcherGateway;
import io.sluice.rest.ClusterOverview;
import io.sluice.rest.RestException;
import io.sluice.rest.gateway.ClusterView;
import io.sluice.rest.gateway.DispatcherRestBackend;
import io.sluice.rest.jars.JarRunner;
import io.sluice.rest.jars.LocalJarDirectory;
import io.sluice.taskexecutor.TaskExecutor;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The {@link io.sluice.rest.RestBackend} of a {@link LocalCluster} in this process: jobs through the
 * Dispatcher of the job manager that leads (or, while none leads, the first one, which answers as a
 * standby), task executors and slots from the cluster, jars in a {@link LocalJarDirectory} run by a
 * {@link JarRunner}.
 *
 * <p>Threading: any thread. Nothing here blocks: the leader is chosen from what the Dispatchers hold
 * in memory ({@link io.sluice.dispatcher.Dispatcher#isLeader()}, the HA leader retrieval), slots are
 * read under the slot pool's short lock, and every job question is one gateway future.
 */
public final class LocalClusterBackend extends DispatcherRestBackend {

    public LocalClusterBackend(LocalCluster cluster, LocalJarDirectory jars, JarRunner jarRunner) {
        super(new LocalClusterView(cluster), jars, jarRunner);
    }

    /** @param deleteJarsWithLastJob {@code rest.jars.delete-with-last-job} */
    public LocalClusterBackend(LocalCluster cluster, LocalJarDirectory jars, JarRunner jarRunner,
                               boolean deleteJarsWithLastJob) {
        super(new LocalClusterView(cluster), jars, jarRunner, deleteJarsWithLastJob);
    }

    /** The job managers, task executors and slot pool of a {@link LocalCluster}. */
    private record LocalClusterView(LocalCluster cluster) implements ClusterView {

        /** The leading Dispatcher, else the first running job manager's (a standby names the leader in its answers). */
        @Override
        public DispatcherGateway dispatcher() {
            List<LocalCluster.JobManager> jobManagers = cluster.jobManagers();
            for (LocalCluster.JobManager jm : jobManagers) {
                if (jm.dispatcher().isLeader()) {
                    return jm.dispatcher();
                }
            }
            if (jobManagers.isEmpty()) {
                throw new RestException(503, "No job manager runs in this cluster; start one, or wait for it to start");
            }
            return jobManagers.get(0).dispatcher();
        }

        @Override
        public List<ClusterOverview.TaskExecutorInfo> taskExecutors() {
            Map<String, Integer> free = cluster.slotPool().freeSlotsByTaskExecutor();
            List<ClusterOverview.TaskExecutorInfo> executors = new ArrayList<>();
            for (TaskExecutor te : cluster.taskExecutors()) {
                executors.add(new ClusterOverview.TaskExecutorInfo(te.id(), te.numberOfSlots(), free.getOrDefault(te.id(), 0)));
            }
            return executors;
        }

        @Override
        public ClusterOverview.Leader leader() {
            Optional<String> leader = cluster.haServices().dispatcherLeaderRetrieval().currentLeader();
            boolean here = leader.isPresent() && cluster.jobManagers().stream().anyMatch(jm -> jm.id().equals(leader.get()));
            return new ClusterOverview.Leader(leader.orElse(null), here);
        }
    }
}
