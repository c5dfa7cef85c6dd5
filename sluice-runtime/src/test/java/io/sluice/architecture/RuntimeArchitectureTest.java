package io.sluice.architecture;

import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

/** sluice-runtime's packages: no cycles, and the layering of docs/architecture.md. */
@AnalyzeClasses(locations = ModuleMainClasses.class)
class RuntimeArchitectureTest {
    static final PackageLayers LAYERS = PackageLayers.bottomUp()
            .layer("main threads, restart policies, meters, TLS", "io.sluice.rpc", "io.sluice.restart", "io.sluice.metrics",
                    "io.sluice.security.tls")
            .layer("remote RPC", "io.sluice.rpc.remote")
            .layer("storage", "io.sluice.storage")
            .layer("network", "io.sluice.network", "io.sluice.network.netty")
            .layer("job and attempt identities", "io.sluice.job")
            .layer("checkpoint model and stores", "io.sluice.checkpoint")
            .layer("protocol", "io.sluice.protocol")
            .layer("user code", "io.sluice.jar")
            .layer("slots", "io.sluice.slots")
            .layer("high availability", "io.sluice.ha", "io.sluice.ha.embedded", "io.sluice.ha.memory",
                    "io.sluice.ha.loader")
            .layer("checkpoint coordination, task execution, job metrics", "io.sluice.checkpoint.coordinator",
                    "io.sluice.taskexecutor", "io.sluice.metrics.job")
            .layer("job master", "io.sluice.jobmaster", "io.sluice.jobmaster.lifecycle",
                    "io.sluice.jobmaster.deployment")
            .layer("job manager runner", "io.sluice.jobmaster.runner")
            .layer("dispatcher and membership", "io.sluice.dispatcher", "io.sluice.cluster.membership")
            .layer("composition roots", "io.sluice.cluster", "io.sluice.cluster.process");

    @ArchTest
    static final ArchRule noCycles = PackageLayers.noCyclesBetweenPackages();

    @ArchTest
    static final ArchRule layering = LAYERS.arrowsPointDown();
}
