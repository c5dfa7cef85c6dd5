package io.sluice.compare.sluice;

import io.sluice.checkpoint.CheckpointStorage;
import io.sluice.compare.Plan;
import io.sluice.compare.Results;
import io.sluice.compare.Scenario;
import io.sluice.compare.Stats;
import io.sluice.graph.JobId;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * {@link Scenario#TASK_FAILOVER}: for each N retained checkpoints and D per storage read, a fresh
 * cluster runs the job until N checkpoints completed, storage reads get D of latency, and then
 * {@code plan.failoverRepeats()} times a keyed task throws. Measured per failover: from the throw
 * (nanoTime in the task, just before the exception) to the first record a restarted keyed instance
 * processes, whether that record's key had restored state, and the checkpoint metadata reads in
 * between. The next failure is injected only after both keyed subtasks process records again.
 */
final class TaskFailover implements ScenarioRunner {
    private static final String ID = Scenario.TASK_FAILOVER.id();
    private static final Duration THROW_WAIT = Duration.ofSeconds(30);

    /** One measured failover. */
    record Failover(long nanos, long metadataReads, boolean restored) {
    }

    @Override
    public void run(HarnessContext context, Results rows, Map<String, String> notes) throws Exception {
        Plan plan = context.plan();
        for (int retained : plan.failoverRetained()) {
            for (Duration latency : plan.failoverLatencies()) {
                String variant = Plan.nd(retained, latency);
                List<Failover> failovers = measure(context, variant, retained, latency);
                double medianMs = Stats.median(failovers.stream().map(f -> f.nanos() / 1e6).toList());
                long maxReads = failovers.stream().mapToLong(Failover::metadataReads).max().orElseThrow();
                double restored = failovers.stream().filter(Failover::restored).count() / (double) failovers.size();
                rows.add(Scenario.TASK_FAILOVER, variant, Scenario.Metric.TO_RUNNING_MS, medianMs)
                        .add(Scenario.TASK_FAILOVER, variant, Scenario.Metric.METADATA_READS, maxReads)
                        .add(Scenario.TASK_FAILOVER, variant, Scenario.Metric.RESTORED, restored);
                context.progress().line(ID, variant, "median %.2f ms over %d failovers, metadata reads max %d,"
                        + " restored state %.0f%%", medianMs, failovers.size(), maxReads, restored * 100);
            }
        }
    }

    private List<Failover> measure(HarnessContext context, String variant, int retained, Duration latency)
            throws Exception {
        Plan plan = context.plan();
        StorageFaults faults = new StorageFaults();
        Duration failoverWait = Duration.ofSeconds(60).plus(latency.multipliedBy(20));
        try (KeyedProbe probe = KeyedProbe.create();
             RecoveryCluster cluster = RecoveryCluster.start(context.zooKeeper(), context.newClusterId("task-failover"),
                     context.newDir("task-failover"), faults)) {
            try {
                JobId id = cluster.submit(Jobs.recoveryJob(plan, retained, cluster.checkpointDir(), probe,
                        "task failover " + variant));
                cluster.awaitCompletedCheckpoints(id, retained, StatusDuringStall.CHECKPOINTS_WAIT);
                faults.setReadLatency(latency);
                CheckpointStorage storage = cluster.storage();
                List<Failover> out = new ArrayList<>();
                for (int i = 1; i <= plan.failoverRepeats(); i++) {
                    long readsBefore = storage.metadataReads();
                    long armedAt = System.nanoTime();
                    probe.failNextRecordOf(0);
                    long thrownAt = probe.awaitThrowAfter(armedAt, THROW_WAIT);
                    KeyedProbe.FirstRecord first = probe.awaitFirstRecord(thrownAt, r -> true, failoverWait,
                            "the first record of a restarted keyed instance");
                    long reads = storage.metadataReads() - readsBefore;
                    Failover f = new Failover(first.nanos() - thrownAt, reads, first.restored());
                    out.add(f);
                    context.progress().line(ID, variant, "failover %d/%d: %s, restored state: %s, metadata reads: %d",
                            i, plan.failoverRepeats(), Progress.ms(f.nanos()), f.restored() ? "yes" : "no", reads);
                    probe.awaitAllSubtasksAfter(thrownAt, Jobs.PARALLELISM, failoverWait);
                }
                faults.heal();
                cluster.cancel(id);
                return out;
            } finally {
                faults.heal();
            }
        }
    }
}
