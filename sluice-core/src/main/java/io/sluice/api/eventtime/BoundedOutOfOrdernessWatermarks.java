package io.sluice.api.eventtime;

/**
 * The watermark trails the highest timestamp seen by the allowed disorder:
 * {@code max timestamp - outOfOrderness - 1}, so a record exactly {@code outOfOrderness} behind
 * the newest one is still on time. With {@code outOfOrderness} 0 this is the monotonous case.
 */
final class BoundedOutOfOrdernessWatermarks implements WatermarkGenerator {
    private final long outOfOrdernessMillis;
    private long maxTimestamp;

    BoundedOutOfOrdernessWatermarks(long outOfOrdernessMillis) {
        this.outOfOrdernessMillis = outOfOrdernessMillis;
        // So that the first watermark computation cannot underflow.
        this.maxTimestamp = Long.MIN_VALUE + outOfOrdernessMillis + 1;
    }

    @Override
    public void onEvent(long timestamp) {
        if (timestamp > maxTimestamp) {
            maxTimestamp = timestamp;
        }
    }

    @Override
    public long currentWatermark() {
        return maxTimestamp - outOfOrdernessMillis - 1;
    }
}
