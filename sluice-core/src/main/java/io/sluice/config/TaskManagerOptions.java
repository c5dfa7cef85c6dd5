package io.sluice.config;

import java.time.Duration;

/** Options of a task manager process (`sluice taskmanager`). Constants only; thread-safe. */
public final class TaskManagerOptions {
    private TaskManagerOptions() {}

    public static final ConfigOption<String> HOST = ConfigOptions.key("taskmanager.host")
            .stringType()
            .defaultValue("127.0.0.1")
            .withConstraint(s -> !s.isBlank(), "a host name or IP address")
            .withDescription("The address a task manager binds its RPC and data servers to and advertises to the"
                    + " job manager and other task managers (unless taskmanager.advertised-host is set). Set it to an"
                    + " address other hosts can reach.");

    public static final ConfigOption<String> ADVERTISED_HOST = ConfigOptions.key("taskmanager.advertised-host")
            .stringType()
            .defaultValue("")
            .withDescription("The address a task manager advertises for its RPC and data servers (to the job manager,"
                    + " and through it to other task managers) when other hosts reach it at another address than the"
                    + " one it binds (taskmanager.host): behind NAT or a TCP proxy, or when it binds 0.0.0.0. The"
                    + " advertised ports are the bound ones. Empty: it advertises taskmanager.host.");

    public static final ConfigOption<Integer> RPC_PORT = ConfigOptions.key("taskmanager.rpc.port")
            .intType()
            .defaultValue(0)
            .withConstraint(n -> n >= 0 && n <= 65535, "a port from 0 to 65535 (0: any free port)")
            .withDescription("The task manager's RPC port; 0 picks a free port (sent with its registration).");

    public static final ConfigOption<Integer> DATA_PORT = ConfigOptions.key("taskmanager.data.port")
            .intType()
            .defaultValue(0)
            .withConstraint(n -> n >= 0 && n <= 65535, "a port from 0 to 65535 (0: any free port)")
            .withDescription("The port of the task manager's data-exchange server (records between task managers);"
                    + " 0 picks a free port.");

    public static final ConfigOption<Integer> SLOTS = ConfigOptions.key("taskmanager.slots")
            .intType()
            .defaultValue(1)
            .withConstraint(n -> n >= 1, "at least 1")
            .withDescription("Task slots this task manager offers; `sluice taskmanager --slots N` overrides it.");

    public static final ConfigOption<Duration> REGISTRATION_INITIAL_BACKOFF =
            ConfigOptions.key("taskmanager.registration.initial-backoff")
                    .durationType()
                    .defaultValue(Duration.ofMillis(100))
                    .withConstraint(d -> !d.isNegative() && !d.isZero(), "a positive duration")
                    .withDescription("First wait before a task manager retries registering with the job manager;"
                            + " doubles after each failed attempt.");

    public static final ConfigOption<Duration> REGISTRATION_MAX_BACKOFF =
            ConfigOptions.key("taskmanager.registration.max-backoff")
                    .durationType()
                    .defaultValue(Duration.ofSeconds(10))
                    .withConstraint(d -> !d.isNegative() && !d.isZero(), "a positive duration")
                    .withDescription("Longest wait between two registration attempts of a task manager.");

    public static final ConfigOption<Duration> NO_LEADER_WARNING_INTERVAL =
            ConfigOptions.key("taskmanager.no-leader-warning-interval")
                    .durationType()
                    .defaultValue(Duration.ofSeconds(10))
                    .withConstraint(d -> d.toMillis() >= 1, "at least 1 ms")
                    .withDescription("How often a task manager whose high-availability services name no job"
                            + " manager leader warns about it (naming the cluster id and ZooKeeper settings to"
                            + " check) while it keeps waiting for one.");
}
