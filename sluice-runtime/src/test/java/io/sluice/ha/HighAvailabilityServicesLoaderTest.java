package io.sluice.ha;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.config.Configuration;
import io.sluice.config.HighAvailabilityOptions;
import io.sluice.config.IllegalConfigurationException;
import io.sluice.ha.embedded.EmbeddedHaServices;
import io.sluice.ha.loader.HighAvailabilityServicesLoader;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class HighAvailabilityServicesLoaderTest {
    @TempDir
    Path haDir;

    /** A user-provided factory, as a plug-in would be. */
    public static final class CustomFactory implements HighAvailabilityServicesFactory {
        @Override
        public HighAvailabilityServices create(Configuration configuration) {
            return new EmbeddedHaServices(Path.of(configuration.get(HighAvailabilityOptions.DIRECTORY), "custom"));
        }
    }

    @Test
    void embeddedIsTheDefaultAndUsesTheConfiguredDirectory() throws Exception {
        Configuration config = new Configuration().set(HighAvailabilityOptions.DIRECTORY, haDir.toString());

        try (HighAvailabilityServices services = HighAvailabilityServicesLoader.load(config)) {
            assertThat(services).isInstanceOf(EmbeddedHaServices.class);
            assertThat(((EmbeddedHaServices) services).haDirectory()).isEqualTo(haDir.toRealPath());
        }
    }

    @Test
    void aFactoryClassNameIsInstantiated() throws Exception {
        Configuration config = new Configuration().set(HighAvailabilityOptions.DIRECTORY, haDir.toString())
                .set(HighAvailabilityOptions.TYPE, CustomFactory.class.getName());

        try (HighAvailabilityServices services = HighAvailabilityServicesLoader.load(config)) {
            assertThat(((EmbeddedHaServices) services).haDirectory()).isEqualTo(haDir.resolve("custom").toRealPath());
        }
    }

    @Test
    void unknownOrWrongClassesAreRejectedClearly() {
        assertThatThrownBy(() -> HighAvailabilityServicesLoader.factoryFor("zookeeperr"))
                .isInstanceOf(IllegalConfigurationException.class)
                .hasMessageContaining("high-availability.type is 'zookeeperr'")
                .hasMessageContaining("neither 'embedded' nor a class on the classpath");
        assertThatThrownBy(() -> HighAvailabilityServicesLoader.factoryFor(String.class.getName()))
                .isInstanceOf(IllegalConfigurationException.class)
                .hasMessageContaining("does not implement " + HighAvailabilityServicesFactory.class.getName());
    }
}
