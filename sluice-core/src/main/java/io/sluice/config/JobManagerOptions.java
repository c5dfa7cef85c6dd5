package io.sluice.config;

/** Where a job manager process (`sluice jobmanager`) listens for RPC. Constants only; thread-safe. */
public final class JobManagerOptions {
    private JobManagerOptions() {}

    public static final ConfigOption<String> RPC_HOST = ConfigOptions.key("jobmanager.rpc.host")
            .stringType()
            .defaultValue("127.0.0.1")
            .withConstraint(s -> !s.isBlank(), "a host name or IP address")
            .withDescription("The address a job manager binds its RPC server to and advertises to task managers"
                    + " (through the HA services). Set it to an address other hosts can reach.");

    public static final ConfigOption<Integer> RPC_PORT = ConfigOptions.key("jobmanager.rpc.port")
            .intType()
            .defaultValue(6123)
            .withConstraint(n -> n >= 0 && n <= 65535, "a port from 0 to 65535 (0: any free port)")
            .withDescription("The job manager's RPC port; 0 picks a free port (it is advertised through the HA services).");
}
