package io.sluice.operators;

import io.sluice.api.eventtime.TimestampAssigner;
import io.sluice.api.eventtime.WatermarkGenerator;
import io.sluice.api.eventtime.WatermarkStrategy;
import io.sluice.api.eventtime.Watermarks;
import io.sluice.util.Clock;

/**
 * Applies a {@link WatermarkStrategy} in one subtask: stamps each record with its timestamp,
 * feeds the subtask's {@link WatermarkGenerator}, and emits the watermark when processing time
 * says so (every {@link WatermarkStrategy#emitInterval()}, only when it advanced). With an idle
 * timeout, a subtask that saw no record for that long emits an idle status, and the next record
 * makes it active again (the status goes out before the record).
 *
 * <p>The emit interval and the idle timeout are durations, measured on the monotonic clock
 * ({@link Clock#relativeTimeMillis}): a wall clock stepped back (NTP, {@code date -s}) does not hold the watermark
 * until it caught up, and one stepped forward does not make a subtask whose records keep coming idle, which would let
 * the watermark downstream pass its records.
 *
 * <p>Watermarks from upstream are dropped (this operator defines event time from here on), except
 * the final {@link Watermarks#MAX} of an ended input, which is forwarded. Task-thread only.
 */
public final class TimestampsAndWatermarksOperator<T> extends UdfOperator<T, T, WatermarkStrategy<T>> {
    /**
     * The value the JVM computed before nextProcessingTimeMillis was added, pinned so that job graphs stored by
     * earlier builds (in HA storage, in savepoints' jobs) still deserialize (MovedClassesCompatibilityTest).
     */
    private static final long serialVersionUID = 4579240858251891546L;
    private transient TimestampAssigner<T> assigner;
    private transient WatermarkGenerator generator;
    private transient RecordTimestamp timestamp;
    private transient Clock clock;
    private transient long emitIntervalMillis;
    private transient long idleTimeoutMillis;
    private transient long lastEmitted;
    /** Monotonic ({@link Clock#relativeTimeMillis}). */
    private transient long nextEmitAt;
    /** Monotonic ({@link Clock#relativeTimeMillis}). */
    private transient long lastRecordAt;
    private transient boolean idle;
    private transient boolean ended;

    public TimestampsAndWatermarksOperator(WatermarkStrategy<T> strategy, String name) {
        super(strategy, name);
    }

    @Override
    public void open(OperatorContext context) throws Exception {
        super.open(context);
        assigner = function.timestampAssigner();
        generator = function.createGenerator();
        timestamp = context.recordTimestamp();
        clock = context.clock();
        emitIntervalMillis = function.emitInterval().toMillis();
        idleTimeoutMillis = function.idleTimeout() == null ? -1 : function.idleTimeout().toMillis();
        lastEmitted = Watermarks.MIN;
        long now = clock.relativeTimeMillis();
        nextEmitAt = now;
        lastRecordAt = now;
    }

    @Override
    public void processElement(T value) throws Exception {
        if (assigner != null) {
            timestamp.set(assigner.extractTimestamp(value, timestamp.get()));
        }
        if (timestamp.isSet()) {
            generator.onEvent(timestamp.get());
        }
        if (idleTimeoutMillis >= 0) {
            lastRecordAt = clock.relativeTimeMillis();
            if (idle) {
                idle = false;
                output.emitIdleStatus(false);
            }
        }
        output.collect(value);
    }

    @Override
    public void advanceProcessingTime(long wallClockMillis) {
        if (ended) {
            return;
        }
        long nowMillis = clock.relativeTimeMillis();
        if (idleTimeoutMillis >= 0 && !idle && nowMillis - lastRecordAt >= idleTimeoutMillis) {
            emitIfAdvanced();
            idle = true;
            output.emitIdleStatus(true);
            return;
        }
        if (!idle && nowMillis >= nextEmitAt) {
            nextEmitAt = nowMillis + emitIntervalMillis;
            emitIfAdvanced();
        }
    }

    /** The next periodic emission, or the moment the subtask turns idle if that comes first; nothing once idle or ended. */
    @Override
    public long nextProcessingTimeMillis(long wallClockMillis) {
        if (ended || idle) {
            return Long.MAX_VALUE; // a record, not time, makes an idle subtask active again
        }
        long due = idleTimeoutMillis >= 0 ? Math.min(nextEmitAt, lastRecordAt + idleTimeoutMillis) : nextEmitAt;
        return wallClockMillis + (due - clock.relativeTimeMillis()); // the task sleeps by the difference
    }

    private void emitIfAdvanced() {
        long wm = generator.currentWatermark();
        if (wm > lastEmitted) {
            lastEmitted = wm;
            output.emitWatermark(wm);
        }
    }

    @Override
    public void processWatermark(long watermark) {
        if (watermark == Watermarks.MAX && !ended) {
            ended = true;
            if (idle) {
                idle = false;
                output.emitIdleStatus(false);
            }
            lastEmitted = Watermarks.MAX;
            output.emitWatermark(Watermarks.MAX);
        }
    }

    @Override
    public void processIdleStatus(boolean upstreamIdle) {
        // This operator decides idleness from its own records.
    }
}
