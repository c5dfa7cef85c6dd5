package io.sluice.architecture;

import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

/** sluice-rest's packages: no cycles, and the layering of docs/architecture.md. */
@AnalyzeClasses(locations = ModuleMainClasses.class)
class RestArchitectureTest {
    static final PackageLayers LAYERS = PackageLayers.bottomUp()
            .layer("JSON model", "io.sluice.rest.model")
            .layer("backend contract and routing", "io.sluice.rest")
            .layer("jar handling", "io.sluice.rest.jars")
            .layer("route groups", "io.sluice.rest.routes", "io.sluice.rest.metrics", "io.sluice.rest.dashboard")
            .layer("backends", "io.sluice.rest.gateway", "io.sluice.rest.local")
            .layer("server", "io.sluice.rest.server");

    @ArchTest
    static final ArchRule noCycles = PackageLayers.noCyclesBetweenPackages();

    @ArchTest
    static final ArchRule layering = LAYERS.arrowsPointDown();
}
