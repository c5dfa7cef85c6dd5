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

    public static final ConfigOption<Boolean> CONFIRM_CONNECTION_LOSS = ConfigOptions.key("heartbeat.confirm-connection-loss")
            .booleanType()
            .defaultValue(true)
            .withDescription("Whether a job manager confirms the loss of a task manager (and a task manager the loss"
                    + " of its job manager) as soon as the RPC connection to it is reset or refused, instead of waiting"
                    + " for heartbeat.timeout: it reconnects for heartbeat.confirm-connection-loss.deadline and declares"
                    + " the peer lost if every attempt is refused (its process is gone). A peer that only falls silent"
                    + " (a GC pause, a cut link) is still judged by the heartbeat alone.");

    public static final ConfigOption<Duration> CONFIRM_CONNECTION_LOSS_DEADLINE =
            ConfigOptions.key("heartbeat.confirm-connection-loss.deadline")
            .durationType()
            .defaultValue(Duration.ofMillis(100))
            .withConstraint(d -> !d.isNegative() && !d.isZero(), "a positive duration")
            .withDescription("How long a job manager (task manager) keeps reconnecting to a task manager (job manager)"
                    + " whose connection was reset or refused before it declares it lost (attempts every fifth of it); a connection that opens, or an"
                    + " attempt that times out instead of being refused, ends the check and leaves the task manager"
                    + " to the heartbeat. Only a refusal counts, and a live process's kernel accepts connections even"
                    + " while the process pauses (a full listen queue drops them, which times out), so a short"
                    + " deadline mistakes no live peer for a dead one; a longer one only guards against a peer that"
                    + " restarts on the same port within it. Should be well below heartbeat.timeout.");
}
