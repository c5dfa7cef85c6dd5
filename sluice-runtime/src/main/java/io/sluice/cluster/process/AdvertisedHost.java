package io.sluice.cluster.process;

/** The host a process advertises for a server: the configured advertised host, or the bound one. Stateless. */
final class AdvertisedHost {
    private AdvertisedHost() {}

    /** {@code advertised} (trimmed) unless blank (the options' default), else {@code bound}. */
    static String of(String advertised, String bound) {
        return advertised.isBlank() ? bound : advertised.trim();
    }
}
