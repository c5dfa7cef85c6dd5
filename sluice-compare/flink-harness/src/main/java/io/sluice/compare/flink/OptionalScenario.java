package io.sluice.compare.flink;

import io.sluice.compare.Plan;
import io.sluice.compare.Results;
import java.util.function.Consumer;
import org.apache.flink.configuration.Configuration;

/**
 * A scenario whose code only some Flink harness modules compile (it needs a dependency the others lack,
 * e.g. flink-connector-kafka); {@link FlinkHarness} loads it by name. Harness thread only.
 */
interface OptionalScenario {
    /** Runs it on a cluster of {@code clusterConfiguration}, adding rows and headers to {@code results}. */
    void run(Plan plan, Results results, Configuration clusterConfiguration, Consumer<String> log) throws Exception;
}
