package io.sluice.architecture;

import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.syntax.ArchRuleDefinition;

/**
 * sluice-connector-kafka's packages: no cycles, the formats below the source and sink, and never the
 * runtime (a job jar bundles this module; it may use only sluice-core's API).
 */
@AnalyzeClasses(locations = ModuleMainClasses.class)
class KafkaConnectorArchitectureTest {
    static final PackageLayers LAYERS = PackageLayers.bottomUp()
            .layer("formats", "io.sluice.connector.kafka.format")
            .layer("source and sink", "io.sluice.connector.kafka");

    @ArchTest
    static final ArchRule noCycles = PackageLayers.noCyclesBetweenPackages();

    @ArchTest
    static final ArchRule layering = LAYERS.arrowsPointDown();

    @ArchTest
    static final ArchRule onlyTheCoreApi = ArchRuleDefinition.noClasses().should().dependOnClassesThat()
            .resideInAnyPackage("io.sluice.taskexecutor..", "io.sluice.jobmaster..", "io.sluice.checkpoint..",
                    "io.sluice.cluster..", "io.sluice.rpc..", "io.sluice.network..", "io.sluice.protocol..")
            .because("the connector is part of job jars and must run against any cluster's runtime");
}
