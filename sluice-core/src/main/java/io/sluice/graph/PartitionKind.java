package io.sluice.graph;

/** How records move from the subtasks of one vertex to those of the next. */
public enum PartitionKind {
    /** Subtask i sends to subtask i; both vertices have the same parallelism. */
    FORWARD,
    /** Round robin over all consumer subtasks. */
    REBALANCE,
    /** By key group of the record's key: each key always reaches the same subtask. */
    HASH
}
