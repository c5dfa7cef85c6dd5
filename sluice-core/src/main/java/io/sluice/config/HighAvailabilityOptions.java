package io.sluice.config;

/** Options choosing the high-availability services and where they keep their data. Constants only; thread-safe. */
public final class HighAvailabilityOptions {
    private HighAvailabilityOptions() {}

    public static final ConfigOption<String> TYPE = ConfigOptions.key("high-availability.type")
            .stringType()
            .defaultValue("embedded")
            .withConstraint(s -> !s.isBlank(), "a non-empty name")
            .withDescription("Which high-availability services to use: 'embedded' (in-JVM leader election, job graphs,"
                    + " results and checkpoint pointers in high-availability.dir), 'memory' (nothing survives the process),"
                    + " or the fully qualified class name"
                    + " of a HighAvailabilityServicesFactory with a public no-argument constructor.");

    public static final ConfigOption<String> DIRECTORY = ConfigOptions.key("high-availability.dir")
            .stringType()
            .defaultValue("./sluice-data/ha")
            .withConstraint(s -> !s.isBlank(), "a non-empty path")
            .withDescription("Directory where the embedded high-availability services keep job graphs, job results,"
                    + " checkpoint pointers and checkpoint id counters. Job managers in one JVM that use the same"
                    + " directory take part in the same leader elections.");
}
