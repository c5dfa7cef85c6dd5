package io.sluice.compare.sluice;

import io.sluice.checkpoint.CheckpointStorage;
import io.sluice.compare.LatencySummary;
import io.sluice.compare.Plan;
import io.sluice.compare.Results;
import io.sluice.compare.Scenario;
import io.sluice.compare.Stats;
import io.sluice.compare.StatusProbe;
import io.sluice.protocol.DispatcherGateway;
import io.sluice.graph.JobId;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * {@link Scenario#JM_FAILOVER}: for each N retained checkpoints and D per storage read,
 * {@code plan.jmRepeats()} times: cluster #1 runs the job until N checkpoints completed and stops,
 * keeping its HA data in ZooKeeper; cluster #2 starts on the same ZooKeeper cluster id and
 * checkpoint directory with storage reads taking D. Measured from just before cluster #2 is built
 * (which includes connecting to ZooKeeper) to the first record a keyed instance processes with
 * restored state; the checkpoint metadata reads of cluster #2 until then; and status queries from
 * the moment cluster #2's gateway exists until then (the first answer's latency, p99, max).
 * Medians over the repeats.
 */
final class JmFailover implements ScenarioRunner {
    private static final String ID = Scenario.JM_FAILOVER.id();

    /** One job-manager failover. */
    record Restart(double toRunningMs, long metadataReads, double firstStatusMs, LatencySummary status) {
    }

    @Override
    public void run(HarnessContext context, Results rows, Map<String, String> notes) throws Exception {
        Plan plan = context.plan();
        for (int retained : plan.jmRetained()) {
            for (Duration latency : plan.jmLatencies()) {
                String variant = Plan.nd(retained, latency);
                List<Restart> restarts = new ArrayList<>();
                for (int i = 1; i <= plan.jmRepeats(); i++) {
                    Restart r = restart(context, retained, latency);
                    restarts.add(r);
                    context.progress().line(ID, variant, "restart %d/%d: restored and processing %.2f ms after the"
                                    + " start, %d metadata reads, first status answer %.2f ms; status %s", i,
                            plan.jmRepeats(), r.toRunningMs(), r.metadataReads(), r.firstStatusMs(), r.status());
                }
                rows.add(Scenario.JM_FAILOVER, variant, Scenario.Metric.TO_RUNNING_MS,
                                Stats.median(restarts.stream().map(Restart::toRunningMs).toList()))
                        .add(Scenario.JM_FAILOVER, variant, Scenario.Metric.METADATA_READS,
                                Stats.median(restarts.stream().map(Restart::metadataReads).toList()))
                        .add(Scenario.JM_FAILOVER, variant, Scenario.Metric.FIRST_STATUS_MS,
                                Stats.median(restarts.stream().map(Restart::firstStatusMs).toList()))
                        .add(Scenario.JM_FAILOVER, variant, Scenario.Metric.STATUS_P99_MS,
                                Stats.median(restarts.stream().map(r -> r.status().p99Ms()).toList()))
                        .add(Scenario.JM_FAILOVER, variant, Scenario.Metric.STATUS_MAX_MS,
                                Stats.median(restarts.stream().map(r -> r.status().maxMs()).toList()));
            }
        }
    }

    private Restart restart(HarnessContext context, int retained, Duration latency) throws Exception {
        Plan plan = context.plan();
        String clusterId = context.newClusterId("jm-failover");
        Path dir = context.newDir("jm-failover");
        Duration restoreWait = Duration.ofSeconds(120).plus(latency.multipliedBy(2L * retained));
        try (KeyedProbe probe = KeyedProbe.create()) {
            JobId id;
            try (RecoveryCluster first = RecoveryCluster.start(context.zooKeeper(), clusterId, dir, new StorageFaults())) {
                id = first.submit(Jobs.recoveryJob(plan, retained, dir, probe,
                        "job-manager failover " + Plan.nd(retained, latency)));
                first.awaitCompletedCheckpoints(id, retained, StatusDuringStall.CHECKPOINTS_WAIT);
            } // stopped; the job's HA data stays in ZooKeeper
            StorageFaults faults = new StorageFaults();
            faults.setReadLatency(latency);
            long startedAt = System.nanoTime();
            try (RecoveryCluster second = RecoveryCluster.start(context.zooKeeper(), clusterId, dir, faults)) {
                DispatcherGateway jobManager = second.jobManager();
                StatusProbe status = new StatusProbe(() -> jobManager.requestJobDetails(id), plan.queryPeriod()).start();
                CheckpointStorage storage = second.storage();
                KeyedProbe.FirstRecord restored = probe.awaitFirstRecord(startedAt, KeyedProbe.FirstRecord::restored,
                        restoreWait, "a keyed instance of the new job manager to process records with restored state");
                LatencySummary summary = status.stop();
                long reads = storage.metadataReads();
                long firstAnswer = status.firstAnswerNanos();
                faults.heal();
                second.cancel(id);
                return new Restart((restored.nanos() - startedAt) / 1e6, reads,
                        firstAnswer < 0 ? Double.NaN : firstAnswer / 1e6, summary);
            } finally {
                faults.heal();
            }
        }
    }
}
