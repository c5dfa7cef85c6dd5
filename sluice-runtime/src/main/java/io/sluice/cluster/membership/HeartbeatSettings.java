package io.sluice.cluster.membership;

import io.sluice.config.Configuration;
import io.sluice.config.Durations;
import io.sluice.config.HeartbeatOptions;
import java.time.Duration;

/**
 * Heartbeat interval and timeout ({@code heartbeat.interval}, {@code heartbeat.timeout}; 1 s and 6 s
 * by default). Immutable.
 */
public record HeartbeatSettings(Duration interval, Duration timeout) {
    public static final HeartbeatSettings DEFAULT = new HeartbeatSettings(HeartbeatOptions.INTERVAL.defaultValue(),
            HeartbeatOptions.TIMEOUT.defaultValue());

    public HeartbeatSettings {
        if (interval.isNegative() || interval.isZero()) {
            throw new IllegalArgumentException("heartbeat.interval must be positive, got " + interval);
        }
        if (timeout.compareTo(interval) <= 0) {
            throw new IllegalArgumentException("heartbeat.timeout (" + timeout + ") must be larger than heartbeat.interval ("
                    + interval + "), otherwise peers count as lost between two heartbeats");
        }
    }

    public static HeartbeatSettings from(Configuration configuration) {
        return new HeartbeatSettings(configuration.get(HeartbeatOptions.INTERVAL),
                configuration.get(HeartbeatOptions.TIMEOUT));
    }

    /** The timeout as people read it: "6 s", "1.5 s", "800 ms". */
    public String describeTimeout() {
        return Durations.describe(timeout);
    }
}
