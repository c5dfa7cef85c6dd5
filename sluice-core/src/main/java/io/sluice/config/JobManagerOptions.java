package io.sluice.config;

/**
 * Where a job manager process (`sluice jobmanager`) listens for RPC, and how it recovers its jobs.
 * Constants only; thread-safe.
 */
public final class JobManagerOptions {
    private JobManagerOptions() {}

    public static final ConfigOption<String> RPC_HOST = ConfigOptions.key("jobmanager.rpc.host")
            .stringType()
            .defaultValue("127.0.0.1")
            .withConstraint(s -> !s.isBlank(), "a host name or IP address")
            .withDescription("The address a job manager binds its RPC server to and advertises to task managers"
                    + " (through the HA services; unless jobmanager.rpc.advertised-host is set). Set it to an address"
                    + " other hosts can reach.");

    public static final ConfigOption<String> RPC_ADVERTISED_HOST = ConfigOptions.key("jobmanager.rpc.advertised-host")
            .stringType()
            .defaultValue("")
            .withDescription("The address a job manager advertises for its RPC server (through the HA services, and"
                    + " in the references to its job masters) when other hosts reach it at another address than the"
                    + " one it binds (jobmanager.rpc.host): behind NAT or a TCP proxy, or when it binds 0.0.0.0. The"
                    + " advertised port is the bound one. Empty: it advertises jobmanager.rpc.host.");

    public static final ConfigOption<Integer> RPC_PORT = ConfigOptions.key("jobmanager.rpc.port")
            .intType()
            .defaultValue(6123)
            .withConstraint(n -> n >= 0 && n <= 65535, "a port from 0 to 65535 (0: any free port)")
            .withDescription("The job manager's RPC port; 0 picks a free port (it is advertised through the HA services).");

    public static final ConfigOption<Integer> RECOVERY_MAX_CONCURRENT_READS =
            ConfigOptions.key("jobmanager.recovery.max-concurrent-reads")
            .intType()
            .defaultValue(32)
            .withConstraint(n -> n >= 1, "at least 1")
            .withDescription("At most this many storage reads of job recovery (a job graph read back, one attempt to"
                    + " recover a job's checkpoints) run at once across all jobs a job manager recovers, for example"
                    + " after it restarts with hundreds of jobs; the others wait their turn in a fair order (jobs in"
                    + " the order they became known, each job's steps in order), and a waiting job's status says"
                    + " 'queued for recovery: N jobs ahead'. Keeps an object store from throttling (S3 limits"
                    + " requests per prefix) and a file system from stalling; the time until all jobs run is about"
                    + " the same, as the reads are the work.");
}
