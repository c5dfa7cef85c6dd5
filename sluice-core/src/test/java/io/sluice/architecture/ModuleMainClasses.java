package io.sluice.architecture;

import com.tngtech.archunit.core.importer.Location;
import com.tngtech.archunit.junit.LocationProvider;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;

/**
 * The main classes of the module whose tests run: {@code target/classes} below the working
 * directory, which Maven's test runner sets to the module's directory. Not its test classes, and not
 * the classes of the modules it depends on (their own architecture tests check those).
 */
public final class ModuleMainClasses implements LocationProvider {
    @Override
    public Set<Location> get(Class<?> testClass) {
        Path classes = Path.of("target", "classes").toAbsolutePath();
        if (!Files.isDirectory(classes)) {
            throw new IllegalStateException("No compiled main classes at " + classes + ": run the architecture"
                    + " test from the module's directory after compiling (mvn test does both)");
        }
        return Set.of(Location.of(classes));
    }
}
