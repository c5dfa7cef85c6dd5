package io.sluice.compare.driver;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * One system of the comparison: its name (the {@code system} column of its result file), the harness
 * module that measures it and the harness's main class.
 *
 * @param name      "sluice", "flink-1.13.6", …
 * @param module    the harness module, relative to the repository root
 * @param mainClass the harness's main class (takes {@code --mode full|smoke --out <file.tsv> [--only ids]})
 */
public record SystemUnderTest(String name, String module, String mainClass) {

    /** The system every ratio is relative to (the numerator of "Sluice ÷ Flink"). */
    public static final String REFERENCE = "sluice";

    public static final SystemUnderTest SLUICE = new SystemUnderTest(REFERENCE, "sluice-compare/compare-sluice",
            "io.sluice.compare.sluice.SluiceHarness");
    public static final SystemUnderTest FLINK_1_13 = new SystemUnderTest("flink-1.13.6",
            "sluice-compare/compare-flink-1.13", "io.sluice.compare.flink.FlinkHarness");
    public static final SystemUnderTest FLINK_1_14 = new SystemUnderTest("flink-1.14.6",
            "sluice-compare/compare-flink-1.14", "io.sluice.compare.flink.FlinkHarness");
    public static final SystemUnderTest FLINK_1_20 = new SystemUnderTest("flink-1.20.5",
            "sluice-compare/compare-flink-1.20", "io.sluice.compare.flink.FlinkHarness");
    public static final SystemUnderTest FLINK_2_3 = new SystemUnderTest("flink-2.3.0",
            "sluice-compare/compare-flink-2.3", "io.sluice.compare.flink.FlinkHarness");

    /** Every system, in the order they run and appear in the report. */
    public static final List<SystemUnderTest> ALL = List.of(SLUICE, FLINK_1_13, FLINK_1_14, FLINK_1_20, FLINK_2_3);

    public Path classesDir(Path root) {
        return root.resolve(module).resolve("target/classes");
    }

    public Path classpathFile(Path root) {
        return root.resolve(module).resolve("target/classpath.txt");
    }

    /**
     * What is missing to fork this harness from {@code root}, with what to do about it; empty if its
     * classes and classpath file are there.
     */
    public Optional<String> missingBuild(Path root) {
        Path classes = classesDir(root);
        Path cpFile = classpathFile(root);
        String missing;
        if (!Files.isDirectory(root.resolve(module))) {
            return Optional.of(name + ": cannot run its harness, the module " + module + " does not exist in " + root
                    + ". It must be on this branch and listed in sluice-compare/pom.xml before the driver can run it.");
        } else if (!Files.isDirectory(classes)) {
            missing = classes + " does not exist";
        } else if (!Files.isRegularFile(cpFile)) {
            missing = cpFile + " does not exist";
        } else {
            return Optional.empty();
        }
        return Optional.of(name + ": cannot run its harness, " + missing + ". Build it first: mvn -B -q -DskipTests"
                + " package -pl " + module + " -am (from " + root + "), or run sluice-compare/run-comparison,"
                + " which builds every harness.");
    }

    /** {@code <module>/target/classes} followed by the entries of {@code target/classpath.txt}. */
    public String classpath(Path root) {
        String fromFile;
        try {
            fromFile = Files.readString(classpathFile(root), StandardCharsets.UTF_8).strip();
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot read " + classpathFile(root) + ": " + e.getMessage()
                    + ". Rebuild the module: mvn -B -q -DskipTests package -pl " + module + " -am", e);
        }
        String classes = classesDir(root).toAbsolutePath().normalize().toString();
        return fromFile.isEmpty() ? classes : classes + java.io.File.pathSeparator + fromFile;
    }
}
