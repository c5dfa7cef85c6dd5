package io.sluice.architecture;

import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

/** sluice-dist's packages: no cycles, and the layering of docs/architecture.md. */
@AnalyzeClasses(locations = ModuleMainClasses.class)
class DistArchitectureTest {
    static final PackageLayers LAYERS = PackageLayers.bottomUp()
            .layer("shared options and exit codes", "io.sluice.cli.common")
            .layer("commands", "io.sluice.cli.client", "io.sluice.cli.cluster", "io.sluice.cli.demo")
            .layer("process commands", "io.sluice.cli.jobmanager", "io.sluice.cli.taskmanager")
            .layer("entry point", "io.sluice.cli");

    @ArchTest
    static final ArchRule noCycles = PackageLayers.noCyclesBetweenPackages();

    @ArchTest
    static final ArchRule layering = LAYERS.arrowsPointDown();
}
