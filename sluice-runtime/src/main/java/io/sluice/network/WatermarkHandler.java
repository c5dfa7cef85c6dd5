package io.sluice.network;

/** Told by a {@link StreamInputProcessor} when the input's combined watermark or idleness changes; task thread. */
public interface WatermarkHandler {
    /** A handler for inputs whose consumer has no use for event time. */
    WatermarkHandler IGNORE = new WatermarkHandler() {
        @Override
        public void onWatermark(long watermark) {}

        @Override
        public void onIdleStatus(boolean idle) {}
    };

    /** The minimum over the input's non-idle channels advanced to {@code watermark}. */
    void onWatermark(long watermark) throws Exception;

    /** Every channel not yet ended is idle ({@code true}), or one of them became active again ({@code false}). */
    void onIdleStatus(boolean idle) throws Exception;
}
