package io.sluice.network;

import io.sluice.api.eventtime.Watermarks;

/**
 * Combines the watermarks and idle statuses of an input's channels into the input's watermark: the
 * minimum over the channels that are neither idle nor ended. It only advances. When every channel
 * not yet ended is idle, the input is idle. A channel that becomes active again with a watermark
 * behind the input's does not pull it back: it counts again once it has caught up ("aligned").
 * An ended channel no longer counts (its producer sent the final watermark before ending).
 *
 * <p>Threading: confined to the task thread, like its {@link StreamInputProcessor}.
 */
final class WatermarkValve {
    private final long[] watermarks;
    private final boolean[] idle;
    private final boolean[] ended;
    /** Whether the channel's watermark counts for the minimum (false after it resumed behind, until it catches up). */
    private final boolean[] aligned;
    private long emitted = Watermarks.MIN;
    private boolean inputIdle;

    WatermarkValve(int channels) {
        this.watermarks = new long[channels];
        this.idle = new boolean[channels];
        this.ended = new boolean[channels];
        this.aligned = new boolean[channels];
        java.util.Arrays.fill(watermarks, Watermarks.MIN);
        java.util.Arrays.fill(aligned, true);
    }

    void onWatermark(int channel, long watermark, WatermarkHandler out) throws Exception {
        if (ended[channel]) {
            return;
        }
        if (idle[channel]) {
            // A watermark implies activity (a producer that resumes may send it before its status).
            onIdleStatus(channel, false, out);
        }
        if (watermark > watermarks[channel]) {
            watermarks[channel] = watermark;
            if (!aligned[channel] && watermark >= emitted) {
                aligned[channel] = true;
            }
            advance(out);
        }
    }

    void onIdleStatus(int channel, boolean nowIdle, WatermarkHandler out) throws Exception {
        if (ended[channel] || idle[channel] == nowIdle) {
            return;
        }
        idle[channel] = nowIdle;
        if (nowIdle) {
            aligned[channel] = false;
            if (allIdle()) {
                setInputIdle(true, out);
            } else {
                advance(out);
            }
        } else {
            aligned[channel] = watermarks[channel] >= emitted;
            setInputIdle(false, out);
        }
    }

    /** The channel delivered its end of partition. */
    void onEnd(int channel, WatermarkHandler out) throws Exception {
        if (ended[channel]) {
            return;
        }
        ended[channel] = true;
        aligned[channel] = false;
        if (allIdle()) {
            if (!allEnded()) {
                setInputIdle(true, out);
            }
        } else {
            advance(out);
        }
    }

    long currentWatermark() {
        return emitted;
    }

    private void advance(WatermarkHandler out) throws Exception {
        long min = Long.MAX_VALUE;
        boolean any = false;
        for (int c = 0; c < watermarks.length; c++) {
            if (!ended[c] && !idle[c] && aligned[c]) {
                any = true;
                min = Math.min(min, watermarks[c]);
            }
        }
        if (any && min > emitted) {
            emitted = min;
            out.onWatermark(min);
        }
    }

    private void setInputIdle(boolean nowIdle, WatermarkHandler out) throws Exception {
        if (inputIdle != nowIdle) {
            inputIdle = nowIdle;
            out.onIdleStatus(nowIdle);
        }
    }

    private boolean allIdle() {
        for (int c = 0; c < idle.length; c++) {
            if (!ended[c] && !idle[c]) {
                return false;
            }
        }
        return true;
    }

    private boolean allEnded() {
        for (boolean e : ended) {
            if (!e) {
                return false;
            }
        }
        return true;
    }
}
