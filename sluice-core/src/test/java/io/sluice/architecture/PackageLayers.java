package io.sluice.architecture;

import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.library.Architectures;
import com.tngtech.archunit.library.Architectures.LayeredArchitecture;
import com.tngtech.archunit.library.dependencies.SlicesRuleDefinition;
import java.util.ArrayList;
import java.util.List;

/**
 * The architecture rules of one module, as its architecture test states them: its packages in layers,
 * from the bottom up, as {@code docs/architecture.md} draws them. Two rules follow, checked on the
 * module's main classes (their bytecode, so calls and types in method bodies count, not only imports):
 * no cycle between two packages of the module, and no arrow against the layering (a class may use
 * classes of its own layer and of the layers below, never of a layer above). Every package of the
 * module must be in a layer, so that a new package takes its place in the picture.
 *
 * <p>Shared through sluice-core's test jar by the architecture tests of sluice-core, sluice-runtime,
 * sluice-rest and sluice-dist. Built once per test class; not thread-safe while being built.
 */
public final class PackageLayers {
    private record Layer(String name, String[] packages) {
    }

    private final List<Layer> layers = new ArrayList<>();

    private PackageLayers() {}

    /** Layers are added from the lowest (used by all above it) to the highest (used by none). */
    public static PackageLayers bottomUp() {
        return new PackageLayers();
    }

    /** Adds the next layer up: {@code packages} are full package names (no sub-packages implied). */
    public PackageLayers layer(String name, String... packages) {
        layers.add(new Layer(name, packages));
        return this;
    }

    /** No cycle between the module's packages, each package a slice of its own. */
    public static ArchRule noCyclesBetweenPackages() {
        return SlicesRuleDefinition.slices().matching("io.sluice.(**)").as("packages of the module")
                .should().beFreeOfCycles()
                .because("packages form layers (docs/architecture.md): move the type a lower package needs"
                        + " down, or the user up, instead of pointing back");
    }

    /** Every arrow between the module's packages points down the layering, and every package has a layer. */
    public ArchRule arrowsPointDown() {
        LayeredArchitecture rule = Architectures.layeredArchitecture().consideringOnlyDependenciesInLayers()
                .ensureAllClassesAreContainedInArchitecture();
        for (Layer layer : layers) {
            rule = rule.layer(layer.name()).definedBy(layer.packages());
        }
        for (int i = 0; i < layers.size(); i++) {
            String[] above = layers.subList(i + 1, layers.size()).stream().map(Layer::name).toArray(String[]::new);
            rule = above.length == 0
                    ? rule.whereLayer(layers.get(i).name()).mayNotBeAccessedByAnyLayer()
                    : rule.whereLayer(layers.get(i).name()).mayOnlyBeAccessedByLayers(above);
        }
        return rule.because("a layer uses only the layers below it (docs/architecture.md); a new package"
                + " needs its place in the module's architecture test and in the picture");
    }
}
