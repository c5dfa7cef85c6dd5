package io.sluice.config;

import java.time.Duration;

/**
 * Heartbeats between a job manager and its task managers, in both directions. Constants only;
 * thread-safe.
 */
public final class HeartbeatOptions {
    private HeartbeatOptions() {}

    public static final ConfigOption<Duration> INTERVAL = ConfigOptions.key("heartbeat.interval")
            .durationType()
            .defaultValue(Duration.ofSeconds(1))
            .withConstraint(d -> !d.isNegative() && !d.isZero(), "a positive duration")
            .withDescription("How often a job manager and each task manager tell each other they are alive.");

    public static final ConfigOption<Duration> TIMEOUT = ConfigOptions.key("heartbeat.timeout")
            .durationType()
            .defaultValue(Duration.ofSeconds(6))
            .withConstraint(d -> !d.isNegative() && !d.isZero(), "a positive duration")
            .withDescription("How long without a heartbeat before the peer counts as lost: a job manager fails over"
                    + " the tasks of a lost task manager, a task manager cancels the tasks of a lost job manager."
                    + " Must be larger than heartbeat.interval; six missed intervals by default, which rides out"
                    + " a GC pause of a few seconds.");
}
