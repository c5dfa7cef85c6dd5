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

    /** Default of {@link #ENDED_JOBS_RETENTION}: one day. */
    public static final java.time.Duration DEFAULT_ENDED_JOBS_RETENTION = java.time.Duration.ofDays(1);

    public static final ConfigOption<java.time.Duration> ENDED_JOBS_RETENTION =
            ConfigOptions.key("jobmanager.ended-jobs.retention")
            .durationType()
            .defaultValue(DEFAULT_ENDED_JOBS_RETENTION)
            .withConstraint(d -> !d.isNegative() && !d.isZero(), "positive")
            .withDescription("How long the leading job manager remembers an ended job after its end: its status,"
                    + " details and checkpoint statistics in memory (REST, the CLI, the dashboard) and its result in"
                    + " the HA services, which a new leader reads. Then it forgets the job: the result is removed and"
                    + " the job is unknown (404). A job that still has retained checkpoints in storage"
                    + " (checkpoints.ended-job-retention) or that a running job was started from is not forgotten"
                    + " until they are gone. The default, a day, answers 'what happened overnight' while a cluster"
                    + " that runs many short jobs stays bounded (jobmanager.ended-jobs.max-count bounds it too).");

    public static final ConfigOption<Integer> ENDED_JOBS_MAX_COUNT = ConfigOptions.key("jobmanager.ended-jobs.max-count")
            .intType()
            .defaultValue(1000)
            .withConstraint(n -> n >= 1, "at least 1")
            .withDescription("At most this many ended jobs are remembered (see jobmanager.ended-jobs.retention):"
                    + " beyond it the leading job manager forgets the ones that ended first, before their retention,"
                    + " when a job ends and at every sweep. Jobs that still have retained checkpoints are never"
                    + " forgotten for the count, so more may be remembered while their checkpoints are kept. Each"
                    + " ended job takes about 1-4 KB of the job manager's heap and one result in the HA services.");
}
