package io.sluice.config;

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
            .withDescription("Buffers (credits) per input channel; bounds the data in flight between two subtasks."
                    + " An aligned checkpoint's barrier waits behind that data: a backpressured job bound by its state"
                    + " (RocksDB reads) checkpoints about a third faster with 2, while a job that moves millions of"
                    + " records per second loses 12-19 % of its throughput with 2 (docs/benchmarks.md, \"Less data"
                    + " in flight\").");
}
