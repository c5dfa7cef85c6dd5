package io.sluice.compare.sluice;

import io.sluice.checkpoint.CheckpointStorage;
import io.sluice.cluster.LocalCluster;
import io.sluice.protocol.DispatcherGateway;
import io.sluice.graph.JobGraph;
import io.sluice.graph.JobId;
import io.sluice.ha.zookeeper.ZooKeeperHaServices;
import io.sluice.protocol.JobDetails;
import io.sluice.job.JobResult;
import io.sluice.job.JobStatus;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * A cluster of the recovery scenarios: one job manager and 2 task executors with 1 slot each in this
 * JVM, on ZooKeeper HA services of its own (a new session, through the {@link ZooKeeperSetup}'s
 * proxy), checkpoint storage on local disk behind {@link StorageFaults}.
 *
 * <p>{@link #close()} stops the cluster as a job-manager process exit would: its jobs are suspended,
 * and their HA data (job graph, checkpoint pointers, id counter) stays in ZooKeeper, so a cluster
 * started later with the same cluster id and checkpoint directory recovers them.
 *
 * <p>Threading: harness thread only (the waits block).
 */
final class RecoveryCluster implements AutoCloseable {
    private final LocalCluster cluster;
    private final Path checkpointDir;

    private RecoveryCluster(LocalCluster cluster, Path checkpointDir) {
        this.cluster = cluster;
        this.checkpointDir = checkpointDir;
    }

    /** Connects to ZooKeeper and starts the cluster; blocking. */
    static RecoveryCluster start(ZooKeeperSetup zk, String clusterId, Path checkpointDir, StorageFaults faults)
            throws Exception {
        ZooKeeperHaServices ha = zk.services(clusterId);
        LocalCluster cluster = LocalCluster.builder()
                .haServices(ha, true)
                .taskExecutors(2).slotsPerTaskExecutor(1)
                .blobStoreDecorator(faults.decorator())
                .build();
        return new RecoveryCluster(cluster, checkpointDir);
    }

    Path checkpointDir() {
        return checkpointDir;
    }

    /** The checkpoint storage of the job's location in this cluster, with its request counters. */
    CheckpointStorage storage() {
        return cluster.checkpointStorages().forLocation(checkpointDir.toString());
    }

    /** The gateway of the dispatcher leader; waits (up to 10 s) for one. */
    DispatcherGateway dispatcher() {
        return cluster.dispatcher();
    }

    /** The gateway of the job manager, available as soon as the cluster is built (before it leads anything). */
    DispatcherGateway jobManager() {
        return cluster.jobManagers().get(0).dispatcher();
    }

    JobId submit(JobGraph graph) throws Exception {
        return cluster.submit(graph);
    }

    /** Waits until the job completed at least {@code n} checkpoints; fails if it ends meanwhile. */
    void awaitCompletedCheckpoints(JobId id, long n, Duration timeout) throws Exception {
        DispatcherGateway dispatcher = dispatcher();
        Waits.until(n + " completed checkpoints of job " + id, timeout, () -> {
            JobDetails d = Waits.details(dispatcher, id);
            if (d.status().isTerminal()) {
                throw new IllegalStateException("Job " + id + " ended " + d.status() + " before completing " + n
                        + " checkpoints: " + d.failureMessage());
            }
            return d.checkpoints().completed() >= n;
        });
    }

    /**
     * Cancels the job and waits until it is CANCELED.
     *
     * @throws IllegalStateException if it ended otherwise
     */
    void cancel(JobId id) throws Exception {
        DispatcherGateway dispatcher = dispatcher();
        dispatcher.cancelJob(id).get(60, TimeUnit.SECONDS);
        JobResult result = dispatcher.requestJobResult(id).get(60, TimeUnit.SECONDS);
        if (result.status() != JobStatus.CANCELED) {
            throw new IllegalStateException("Job " + id + " ended " + result.status() + " instead of CANCELED: "
                    + result.failureMessage());
        }
    }

    @Override
    public void close() {
        cluster.close();
    }
}
