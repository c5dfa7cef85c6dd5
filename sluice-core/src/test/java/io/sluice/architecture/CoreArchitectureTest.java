package io.sluice.architecture;

import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

/** sluice-core's packages: no cycles, and the layering of docs/architecture.md. */
@AnalyzeClasses(locations = ModuleMainClasses.class)
class CoreArchitectureTest {
    static final PackageLayers LAYERS = PackageLayers.bottomUp()
            .layer("foundations", "io.sluice.util", "io.sluice.config", "io.sluice.concurrent", "io.sluice.api.errors",
                    "io.sluice.api.tuple")
            .layer("event time and windows", "io.sluice.api.eventtime", "io.sluice.api.windowing")
            .layer("serialization", "io.sluice.core.serialization")
            .layer("state descriptors", "io.sluice.api.state")
            .layer("user functions", "io.sluice.api.functions")
            .layer("sources and sinks", "io.sluice.api.source", "io.sluice.api.sink")
            .layer("keyed state backend", "io.sluice.state.ttl", "io.sluice.state")
            .layer("operators", "io.sluice.operators.timers", "io.sluice.operators", "io.sluice.operators.windowing")
            .layer("job graph", "io.sluice.graph")
            .layer("job execution", "io.sluice.api.execution")
            .layer("DataStream API", "io.sluice.api");

    @ArchTest
    static final ArchRule noCycles = PackageLayers.noCyclesBetweenPackages();

    @ArchTest
    static final ArchRule layering = LAYERS.arrowsPointDown();
}
