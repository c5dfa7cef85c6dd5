package io.sluice.config;

import java.time.Duration;

/** Options of the network RPC between job managers and task managers. Constants only; thread-safe. */
public final class RpcOptions {
    private RpcOptions() {}

    public static final ConfigOption<Duration> TIMEOUT = ConfigOptions.key("rpc.timeout")
            .durationType()
            .defaultValue(Duration.ofSeconds(10))
            .withConstraint(d -> !d.isNegative() && !d.isZero(), "a positive duration")
            .withDescription("How long a remote call (job manager to task manager and back) may take before it"
                    + " fails with a timeout naming the call and its target.");

    public static final ConfigOption<Duration> CONNECT_TIMEOUT = ConfigOptions.key("rpc.connect-timeout")
            .durationType()
            .defaultValue(Duration.ofSeconds(5))
            .withConstraint(d -> !d.isNegative() && !d.isZero(), "a positive duration")
            .withDescription("How long opening a connection to another Sluice process may take.");

    public static final ConfigOption<Integer> MAX_MESSAGE_SIZE = ConfigOptions.key("rpc.max-message-size")
            .intType()
            .defaultValue(64 * 1024 * 1024)
            .withConstraint(n -> n >= 64 * 1024, "at least 65536 bytes")
            .withDescription("Largest RPC message in bytes. A larger call fails on the sender with an error naming"
                    + " the call and its size, and a receiver refuses larger frames.");
}
