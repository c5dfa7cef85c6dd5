package io.sluice.compare.kafka;

import io.sluice.compare.Plan;
import java.time.Duration;
import java.util.Locale;

/**
 * The parameters of the Kafka scenario, derived from the run's {@link Plan} mode (kept apart from
 * {@code Plan} because only the harnesses with Kafka use them).
 *
 * @param keys               distinct keys of the counting job
 * @param partitions         partitions of the input and of the output topic (= the job's parallelism)
 * @param backlog            records written before the job starts; the job drains them as fast as it can
 * @param measureFrom        fraction of the backlog that must be visible before the records/s window
 *                           opens (start-up, JIT warm-up and the first checkpoints are left out)
 * @param pacedRate          records/s of the timed records written after the backlog is drained
 * @param pacedDuration      how long timed records are written
 * @param checkpointInterval checkpoint interval of the job
 * @param drainTimeout       how long the backlog may take to become visible before the scenario fails
 */
public record KafkaPlan(int keys, int partitions, long backlog, double measureFrom, double pacedRate,
                        Duration pacedDuration, Duration checkpointInterval, Duration drainTimeout) {

    public static KafkaPlan of(Plan plan) {
        return plan.smokeMode()
                ? new KafkaPlan(1024, 2, 5_000, 0.0, 500, Duration.ofSeconds(1), Duration.ofSeconds(1),
                        Duration.ofMinutes(2))
                : new KafkaPlan(1024, 2, 6_000_000, 0.25, 10_000, Duration.ofSeconds(20), Duration.ofSeconds(1),
                        Duration.ofMinutes(15));
    }

    /** Records the paced phase writes. */
    public long pacedRecords() {
        return (long) (pacedRate * pacedDuration.toNanos() / 1e9);
    }

    /** The variant label of the scenario's rows. */
    public String variant() {
        return String.format(Locale.ROOT, "exactly once, checkpoints every %d ms, %d partitions, %d keys",
                checkpointInterval.toMillis(), partitions, keys);
    }

    public String describe() {
        return String.format(Locale.ROOT, "keys=%d partitions=%d backlog=%d measureFrom=%.2f pacedRate=%.0f/s"
                        + " pacedDuration=%dms checkpointInterval=%dms", keys, partitions, backlog, measureFrom,
                pacedRate, pacedDuration.toMillis(), checkpointInterval.toMillis());
    }
}
