package io.sluice.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

/**
 * sluice-state-rocksdb's packages: no cycles, every package placed, and nothing above sluice-core's
 * keyed state layer used (the backend is found by the runtime by name, it never calls the runtime,
 * the operators or the DataStream API).
 */
@AnalyzeClasses(locations = ModuleMainClasses.class)
class RocksDbArchitectureTest {
    static final PackageLayers LAYERS = PackageLayers.bottomUp()
            .layer("RocksDB keyed state", "io.sluice.state.rocksdb");

    @ArchTest
    static final ArchRule noCycles = PackageLayers.noCyclesBetweenPackages();

    @ArchTest
    static final ArchRule layering = LAYERS.arrowsPointDown();

    @ArchTest
    static final ArchRule onlyTheKeyedStateLayerOfCore = noClasses().that().resideInAPackage("io.sluice.state.rocksdb")
            .should().dependOnClassesThat().resideInAnyPackage("io.sluice.operators..", "io.sluice.graph..",
                    "io.sluice.api", "io.sluice.api.execution..", "io.sluice.api.functions..", "io.sluice.taskexecutor..",
                    "io.sluice.checkpoint..", "io.sluice.runtime..")
            .because("the RocksDB backend is a keyed state backend only: the runtime finds it by name");
}
