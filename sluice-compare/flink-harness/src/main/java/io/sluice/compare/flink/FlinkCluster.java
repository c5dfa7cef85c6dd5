package io.sluice.compare.flink;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.executiongraph.AccessExecutionGraph;
import org.apache.flink.runtime.highavailability.HighAvailabilityServices;
import org.apache.flink.runtime.jobgraph.JobGraph;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.minicluster.MiniClusterConfiguration;

/**
 * One Flink MiniCluster (job manager and, by default, one task manager with 2 slots, in this JVM),
 * with the given configuration; with ZooKeeper HA, closing it keeps the HA data ({@link RetainingHaServices}),
 * so that the next cluster on the same configuration recovers the job like a restarted job manager.
 *
 * <p>Thread rules: start/close from the harness thread; the query methods from any thread.
 */
final class FlinkCluster implements AutoCloseable {
    private final MiniCluster cluster;

    private FlinkCluster(Configuration configuration, int taskManagers, int slotsPerTaskManager) {
        MiniClusterConfiguration mc = new MiniClusterConfiguration.Builder().setConfiguration(configuration)
                .setNumTaskManagers(taskManagers).setNumSlotsPerTaskManager(slotsPerTaskManager).build();
        this.cluster = new MiniCluster(mc) {
            @Override
            protected HighAvailabilityServices createHighAvailabilityServices(Configuration conf, Executor executor)
                    throws Exception {
                return RetainingHaServices.wrap(super.createHighAvailabilityServices(conf, executor));
            }
        };
    }

    static FlinkCluster start(Configuration configuration) throws Exception {
        return start(configuration, 1, 2);
    }

    /**
     * A cluster of {@code taskManagers} task managers with {@code slotsPerTaskManager} slots each; each
     * task manager has its own network stack (a Netty server on its own port), so channels between
     * tasks of different task managers are remote input channels over TCP, as between processes.
     */
    static FlinkCluster start(Configuration configuration, int taskManagers, int slotsPerTaskManager)
            throws Exception {
        FlinkCluster c = new FlinkCluster(configuration, taskManagers, slotsPerTaskManager);
        c.cluster.start();
        return c;
    }

    /** The MiniCluster itself, for what this class does not wrap (savepoints, in the 1.15+ harnesses). */
    MiniCluster miniCluster() {
        return cluster;
    }

    JobID submit(JobGraph job) throws Exception {
        Recorder.jobSubmitted();
        return cluster.submitJob(job).get(60, TimeUnit.SECONDS).getJobID();
    }

    /** The status query the probes send: answered by the dispatcher, from the job master. */
    CompletableFuture<JobStatus> status(JobID id) {
        return cluster.getJobStatus(id);
    }

    CompletableFuture<? extends AccessExecutionGraph> executionGraph(JobID id) {
        return cluster.getExecutionGraph(id);
    }

    void awaitStatus(JobID id, JobStatus expected, Duration timeout) throws Exception {
        await("job " + id + " to be " + expected, timeout, () -> {
            try {
                return cluster.getJobStatus(id).get(5, TimeUnit.SECONDS) == expected;
            } catch (Exception e) {
                return false;
            }
        });
    }

    void cancel(JobID id) throws Exception {
        cluster.cancelJob(id).get(60, TimeUnit.SECONDS);
        awaitStatus(id, JobStatus.CANCELED, Duration.ofSeconds(60));
    }

    @Override
    public void close() throws Exception {
        cluster.closeAsync().get(120, TimeUnit.SECONDS);
    }

    /** Polls {@code condition} every 2 ms until it holds; fails with a message naming {@code what}. */
    static void await(String what, Duration timeout, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("Timed out after " + timeout.toSeconds() + " s waiting for " + what);
            }
            TimeUnit.MILLISECONDS.sleep(2);
        }
    }
}
