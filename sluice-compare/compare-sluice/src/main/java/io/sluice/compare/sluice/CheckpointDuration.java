package io.sluice.compare.sluice;

import io.sluice.checkpoint.CheckpointStats;
import io.sluice.checkpoint.CompletedCheckpointStats;
import io.sluice.cluster.LocalCluster;
import io.sluice.compare.Plan;
import io.sluice.compare.Results;
import io.sluice.compare.Scenario;
import io.sluice.compare.Stats;
import io.sluice.protocol.DispatcherGateway;
import io.sluice.graph.JobGraph;
import io.sluice.graph.JobId;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;

/**
 * {@link Scenario#CHECKPOINT_DURATION}: the throughput job with {@code plan.checkpointKeys()} keys
 * (one 8-byte count each) on a plain {@link LocalCluster}, checkpoints every
 * {@code plan.checkpointInterval()} to local disk. Once the keyed vertex took in twice as many
 * records as there are keys (so every key has state), the next {@code plan.checkpointsMeasured()}
 * checkpoints triggered after that are measured as Sluice reports them
 * ({@link io.sluice.checkpoint.CheckpointStats#recent()}): trigger to completion, and the bytes of
 * their state files (Sluice's checkpoints are always full).
 */
final class CheckpointDuration implements ScenarioRunner {
    private static final String ID = Scenario.CHECKPOINT_DURATION.id();

    @Override
    public void run(HarnessContext context, Results rows, Map<String, String> notes) throws Exception {
        Plan plan = context.plan();
        String variant = "keys=" + plan.checkpointKeys();
        Path dir = context.newDir("checkpoint-duration");
        TreeMap<Long, CompletedCheckpointStats> measured = new TreeMap<>();
        try (LocalCluster cluster = LocalCluster.builder().taskExecutors(2).slotsPerTaskExecutor(1).build()) {
            JobGraph graph = Jobs.unlimitedJob(plan.checkpointKeys(), plan.checkpointInterval(), dir,
                    "checkpoint duration " + variant);
            int keyed = Jobs.keyedVertex(graph);
            JobId id = cluster.submit(graph);
            DispatcherGateway dispatcher = cluster.dispatcher();
            try {
                Throughput.awaitCounting(dispatcher, id, keyed, 2L * plan.checkpointKeys());
                long everyKeyAt = System.currentTimeMillis();
                int wanted = plan.checkpointsMeasured();
                Duration timeout = Duration.ofSeconds(60).plus(plan.checkpointInterval().multipliedBy(10L * wanted));
                Waits.until(wanted + " completed checkpoints of job " + id, timeout, () -> {
                    CheckpointStats stats = Waits.details(dispatcher, id).checkpoints();
                    for (CompletedCheckpointStats s : stats.recent()) {
                        if (s.triggerTimestampMillis() > everyKeyAt && measured.size() < wanted) {
                            measured.putIfAbsent(s.checkpointId(), s);
                        }
                    }
                    return measured.size() >= wanted;
                });
            } finally {
                Throughput.cancel(dispatcher, id);
            }
        }
        long[] nanos = measured.values().stream().mapToLong(CompletedCheckpointStats::durationNanos).sorted().toArray();
        CompletedCheckpointStats last = measured.lastEntry().getValue();
        double p50 = Stats.percentile(nanos, 50) / 1e6;
        double max = nanos[nanos.length - 1] / 1e6;
        rows.add(Scenario.CHECKPOINT_DURATION, variant, Scenario.Metric.DURATION_P50_MS, p50)
                .add(Scenario.CHECKPOINT_DURATION, variant, Scenario.Metric.DURATION_MAX_MS, max)
                .add(Scenario.CHECKPOINT_DURATION, variant, Scenario.Metric.STATE_BYTES, last.stateBytes())
                .add(Scenario.CHECKPOINT_DURATION, variant, Scenario.Metric.CHECKPOINTS, measured.size());
        context.progress().line(ID, variant, "%d checkpoints (ids %d-%d): p50 %.2f ms, max %.2f ms, state %,d bytes",
                measured.size(), measured.firstKey(), measured.lastKey(), p50, max, last.stateBytes());
    }
}
