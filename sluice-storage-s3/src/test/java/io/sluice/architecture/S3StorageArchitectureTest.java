package io.sluice.architecture;

import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.syntax.ArchRuleDefinition;

/**
 * sluice-storage-s3's packages: no cycles; the S3 file sink ({@code storage.s3.sink}) above the checkpoint
 * storage ({@code storage.s3}, whose options it reads), and the sink never uses the runtime's packages,
 * since its classes run inside a job's tasks against sluice-core's API only.
 */
@AnalyzeClasses(locations = ModuleMainClasses.class)
class S3StorageArchitectureTest {
    static final PackageLayers LAYERS = PackageLayers.bottomUp()
            .layer("checkpoint storage on S3", "io.sluice.storage.s3")
            .layer("exactly-once file sink on S3", "io.sluice.storage.s3.sink");

    @ArchTest
    static final ArchRule noCycles = PackageLayers.noCyclesBetweenPackages();

    @ArchTest
    static final ArchRule layering = LAYERS.arrowsPointDown();

    @ArchTest
    static final ArchRule theSinkUsesOnlyTheCoreApi = ArchRuleDefinition.noClasses()
            .that().resideInAPackage("io.sluice.storage.s3.sink..")
            .should().dependOnClassesThat().resideInAnyPackage("io.sluice.taskexecutor..", "io.sluice.jobmaster..",
                    "io.sluice.checkpoint..", "io.sluice.cluster..", "io.sluice.rpc..", "io.sluice.network..",
                    "io.sluice.protocol..", "io.sluice.storage")
            .because("the sink runs inside a job's tasks and must work against sluice-core's API; it shares only"
                    + " S3Options with the checkpoint storage");
}
