package io.sluice.cli.demo;

import java.time.Duration;

/**
 * The validated settings of one {@code sluice demo} run.
 *
 * @param rate records per second over all source subtasks; 0 means unlimited
 */
record DemoSettings(long records, int keys, int parallelism, long rate, int failures, long seed,
                    Duration checkpointInterval, String checkpointDir, int taskExecutors, int slots,
                    Duration timeout) {
}
