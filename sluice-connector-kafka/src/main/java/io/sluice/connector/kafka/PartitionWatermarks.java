package io.sluice.connector.kafka;

import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;

/**
 * Per-partition watermarks of one Kafka source subtask: each partition's watermark trails its highest
 * record timestamp by the allowed out-of-orderness ({@code max - outOfOrderness - 1}, as
 * {@code WatermarkStrategy.forBoundedOutOfOrderness}); the subtask's watermark is the minimum over its
 * partitions that are not idle. A partition that has delivered nothing for the idle timeout (processing
 * time) stops holding the watermark back; when all are idle the subtask is idle, and so is a subtask with no
 * partition at all. So a slow partition holds event time back and an empty one does not, whichever subtask
 * reads them.
 *
 * <p>Task thread only.
 */
final class PartitionWatermarks {
    private final long outOfOrdernessMillis;
    private final long idleTimeoutMillis; // -1: partitions never count as idle
    private final Map<TopicPartition, long[]> partitions = new HashMap<>(); // {max timestamp, last record at}
    private long emitted = Long.MIN_VALUE;
    private boolean idle;

    PartitionWatermarks(long outOfOrdernessMillis, long idleTimeoutMillis) {
        this.outOfOrdernessMillis = outOfOrdernessMillis;
        this.idleTimeoutMillis = idleTimeoutMillis;
    }

    /** {@code tp} is read by this subtask from now on (assigned at start or discovered). */
    void track(TopicPartition tp, long nowMillis) {
        partitions.putIfAbsent(tp, new long[] {Long.MIN_VALUE, nowMillis});
    }

    void onRecord(TopicPartition tp, long timestamp, long nowMillis) {
        long[] p = partitions.computeIfAbsent(tp, k -> new long[] {Long.MIN_VALUE, nowMillis});
        if (timestamp > p[0]) {
            p[0] = timestamp;
        }
        p[1] = nowMillis;
    }

    /**
     * The watermark to emit now if it advanced, else {@code Long.MIN_VALUE}. Call {@link #idleChange} first.
     */
    long advance(long nowMillis) {
        long min = Long.MAX_VALUE;
        boolean any = false;
        for (long[] p : partitions.values()) {
            if (isIdle(p, nowMillis)) {
                continue;
            }
            any = true;
            long wm = p[0] == Long.MIN_VALUE ? Long.MIN_VALUE : p[0] - outOfOrdernessMillis - 1;
            min = Math.min(min, wm);
        }
        if (!any || min == Long.MIN_VALUE || min <= emitted) {
            return Long.MIN_VALUE;
        }
        emitted = min;
        return min;
    }

    /**
     * {@code Boolean.TRUE} when the subtask just became idle, {@code FALSE} when active again, else null. A
     * subtask that reads no partition is idle whatever the idle timeout (more subtasks than partitions, as after
     * a rescale): it would otherwise hold every window after it back for good.
     */
    Boolean idleChange(long nowMillis) {
        boolean allIdle = idleTimeoutMillis >= 0 || partitions.isEmpty();
        for (long[] p : partitions.values()) {
            if (!isIdle(p, nowMillis)) {
                allIdle = false;
                break;
            }
        }
        if (allIdle != idle) {
            idle = allIdle;
            return allIdle;
        }
        return null;
    }

    private boolean isIdle(long[] p, long nowMillis) {
        return idleTimeoutMillis >= 0 && nowMillis - p[1] >= idleTimeoutMillis;
    }
}
