package io.sluice.compare.flink;

import io.sluice.compare.LargeStatePlan;
import io.sluice.compare.Results;
import java.util.function.Consumer;

/**
 * {@link io.sluice.compare.Scenario#LARGE_STATE}, whose code only the harness modules with
 * flink-statebackend-rocksdb compile ({@code flink-harness/src/rocksdb}: 1.20 and 2.3); {@link FlinkHarness}
 * loads it by name. Harness thread only.
 */
interface LargeStateScenario {
    /** Runs it, adding rows and headers to {@code results}. */
    void run(LargeStatePlan plan, Results results, Consumer<String> log) throws Exception;
}
