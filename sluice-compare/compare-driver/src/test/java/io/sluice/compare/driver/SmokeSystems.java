package io.sluice.compare.driver;

import java.nio.file.Path;
import java.util.List;

/**
 * Which systems {@link ComparisonSmokeITCase} runs, from the system property {@value #PROPERTY}:
 * unset or empty, {@link #DEFAULT} (Sluice and the newest Flink version, every scenario); {@code all},
 * every system of {@link SystemUnderTest#ALL} (the Maven profile {@code compare-all-smoke} sets that);
 * otherwise a {@code --systems} list ({@code sluice,flink-1.13.6,...}), checked as the driver checks it.
 */
final class SmokeSystems {
    static final String PROPERTY = "compare.smoke.systems";
    /** The default run: Sluice, the reference, and Flink 2.3, the newest version and the one the issues compare with. */
    static final List<SystemUnderTest> DEFAULT = List.of(SystemUnderTest.SLUICE, SystemUnderTest.FLINK_2_3);

    private SmokeSystems() {}

    /** The systems {@code value} (the property's value, may be null) asks for, in {@link SystemUnderTest#ALL} order. */
    static List<SystemUnderTest> parse(String value, Path root) {
        if (value == null || value.isBlank()) {
            return DEFAULT;
        }
        if (value.strip().equals("all")) {
            return SystemUnderTest.ALL;
        }
        try {
            return DriverArgs.parse(new String[] {"--mode", "smoke", "--root", root.toString(), "--systems", value},
                    SystemUnderTest.ALL, root).systems();
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("-D" + PROPERTY + "=" + value + ": " + e.getMessage()
                    + " (or 'all', or leave it unset for " + names(DEFAULT) + ")", e);
        }
    }

    static String names(List<SystemUnderTest> systems) {
        return String.join(",", systems.stream().map(SystemUnderTest::name).toList());
    }
}
