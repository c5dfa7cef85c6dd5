package io.sluice.config;

import java.time.Duration;

/** Options sizing the cluster and its network stack. Constants only; thread-safe. */
public final class ClusterOptions {
    private ClusterOptions() {}

    public static final ConfigOption<Integer> TASK_EXECUTORS = ConfigOptions.key("cluster.task-executors")
            .intType()
            .defaultValue(2)
            .withConstraint(n -> n >= 1, "at least 1")
            .withDescription("Number of task executors started by a local cluster.");

    public static final ConfigOption<Integer> SLOTS_PER_TASK_EXECUTOR = ConfigOptions.key("cluster.slots-per-task-executor")
            .intType()
            .defaultValue(2)
            .withConstraint(n -> n >= 1, "at least 1")
            .withDescription("Task slots offered by each task executor; one slot runs one subtask of each operator chain.");

    public static final ConfigOption<Integer> NETWORK_BUFFER_SIZE = ConfigOptions.key("network.buffer-size")
            .intType()
            .defaultValue(32 * 1024)
            .withConstraint(n -> n >= 1024, "at least 1024")
            .withDescription("Size in bytes of one network buffer; a record larger than this spans several buffers.");

    public static final ConfigOption<Integer> NETWORK_BUFFERS_PER_CHANNEL = ConfigOptions.key("network.buffers-per-channel")
            .intType()
            .defaultValue(4)
            .withConstraint(n -> n >= 1, "at least 1")
            .withDescription("Buffers (credits) per input channel; bounds the data in flight between two subtasks"
                    + " (while backpressured, network.in-flight-target makes the buffers smaller instead). Fewer"
                    + " buffers cost throughput: a job that moves millions of records per second loses 12-19 % of"
                    + " it with 2 (docs/benchmarks.md, \"Less data in flight\").");

    public static final ConfigOption<Duration> NETWORK_IN_FLIGHT_TARGET = ConfigOptions.key("network.in-flight-target")
            .durationType()
            .defaultValue(Duration.ofMillis(300))
            .withConstraint(d -> !d.isNegative(), "zero or positive")
            .withDescription("While the consumers of an edge backpressure it, its producers hand over buffers smaller"
                    + " than network.buffer-size (down to 1 KiB), sized from the throughput they measure every 200 ms"
                    + " so that the edge's channels hold about this much time's worth of records. An aligned"
                    + " checkpoint's barrier waits behind what is in flight, so this bounds that wait without fewer"
                    + " buffers per channel. Without backpressure buffers stay full size. 0 turns the sizing off"
                    + " (docs/benchmarks.md, \"Buffers sized to the throughput\").");
}
