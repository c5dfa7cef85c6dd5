package io.sluice.api.eventtime;

import io.sluice.api.errors.InvalidJobException;
import java.io.Serializable;
import java.time.Duration;
import java.util.Objects;

/**
 * How a stream gets event time: which timestamp each record has ({@link TimestampAssigner}), how
 * far behind the newest timestamp the watermark trails (the disorder the stream may have), after how
 * long without records a subtask declares itself idle, and how often watermarks are emitted. Applied
 * per subtask of a source ({@code env.fromSource(source, strategy, name)}) or of a stream
 * ({@code stream.assignTimestampsAndWatermarks(strategy)}): each subtask has its own generator.
 * Immutable; the {@code with...} methods return a new strategy.
 *
 * <pre>{@code
 * WatermarkStrategy.<Click>forBoundedOutOfOrderness(Duration.ofSeconds(5))
 *         .withTimestampAssigner((click, previous) -> click.timeMillis())
 *         .withIdleness(Duration.ofMinutes(1));
 * }</pre>
 */
public final class WatermarkStrategy<T> implements Serializable {
    /** The default interval between two watermarks of a subtask (when the watermark advanced). */
    public static final Duration DEFAULT_EMIT_INTERVAL = Duration.ofMillis(200);

    private final Duration outOfOrderness;
    private final TimestampAssigner<T> assigner;
    private final Duration idleTimeout;
    private final Duration emitInterval;

    private WatermarkStrategy(Duration outOfOrderness, TimestampAssigner<T> assigner, Duration idleTimeout,
                              Duration emitInterval) {
        this.outOfOrderness = outOfOrderness;
        this.assigner = assigner;
        this.idleTimeout = idleTimeout;
        this.emitInterval = emitInterval;
    }

    /**
     * Records arrive at most {@code maxOutOfOrderness} behind the newest timestamp seen. A negative
     * value is reported when the job graph is built, naming the operator.
     */
    public static <T> WatermarkStrategy<T> forBoundedOutOfOrderness(Duration maxOutOfOrderness) {
        return new WatermarkStrategy<>(Objects.requireNonNull(maxOutOfOrderness, "maxOutOfOrderness"), null, null,
                DEFAULT_EMIT_INTERVAL);
    }

    /** Timestamps never decrease within a subtask (out-of-orderness zero). */
    public static <T> WatermarkStrategy<T> forMonotonousTimestamps() {
        return forBoundedOutOfOrderness(Duration.ZERO);
    }

    /** Where each record's timestamp comes from. Without one, the timestamp the record already carries is kept. */
    public WatermarkStrategy<T> withTimestampAssigner(TimestampAssigner<T> timestampAssigner) {
        return new WatermarkStrategy<>(outOfOrderness, Objects.requireNonNull(timestampAssigner, "timestampAssigner"),
                idleTimeout, emitInterval);
    }

    /**
     * A subtask that has seen no record for {@code timeout} (processing time) declares itself idle:
     * downstream operators then compute their watermark without it, until it emits a record again.
     */
    public WatermarkStrategy<T> withIdleness(Duration timeout) {
        Objects.requireNonNull(timeout, "timeout");
        return new WatermarkStrategy<>(outOfOrderness, assigner, timeout, emitInterval);
    }

    /**
     * Emit the watermark at most every {@code interval} of processing time (default 200 ms; zero:
     * whenever the task looks, between batches of records). Each watermark hands partly filled
     * buffers on, so very short intervals cost throughput.
     */
    public WatermarkStrategy<T> withEmitInterval(Duration interval) {
        Objects.requireNonNull(interval, "interval");
        return new WatermarkStrategy<>(outOfOrderness, assigner, idleTimeout, interval);
    }

    public Duration outOfOrderness() {
        return outOfOrderness;
    }

    /** The assigner, or {@code null} to keep the timestamps records carry. */
    public TimestampAssigner<T> timestampAssigner() {
        return assigner;
    }

    /** The idle timeout, or {@code null} if the subtask never declares itself idle. */
    public Duration idleTimeout() {
        return idleTimeout;
    }

    public Duration emitInterval() {
        return emitInterval;
    }

    /** A new generator, one per subtask. */
    public WatermarkGenerator createGenerator() {
        return new BoundedOutOfOrdernessWatermarks(outOfOrderness.toMillis());
    }

    /**
     * Checks the settings, for the job graph builder.
     *
     * @throws InvalidJobException naming {@code operatorName} and what to change
     */
    public void validate(String operatorName) {
        if (outOfOrderness.isNegative()) {
            throw new InvalidJobException("Operator '" + operatorName + "': the watermark strategy's out-of-orderness is "
                    + outOfOrderness + ", which is negative. Use Duration.ZERO (or forMonotonousTimestamps()) for"
                    + " timestamps that never decrease, or the largest delay a record may have behind the newest one.");
        }
        if (idleTimeout != null && (idleTimeout.isNegative() || idleTimeout.isZero())) {
            throw new InvalidJobException("Operator '" + operatorName + "': the idle timeout is " + idleTimeout
                    + "; it must be positive (for example withIdleness(Duration.ofMinutes(1))), or leave withIdleness out.");
        }
        if (emitInterval.isNegative()) {
            throw new InvalidJobException("Operator '" + operatorName + "': the watermark emit interval is "
                    + emitInterval + "; it must be zero or positive.");
        }
    }
}
