package io.sluice.rest;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;

/** The Sluice version of this build, from {@code io/sluice/rest/version.properties} (filtered by Maven). */
public final class SluiceVersion {
    private static final String VERSION = load();

    private SluiceVersion() {}

    public static String get() {
        return VERSION;
    }

    private static String load() {
        try (InputStream in = SluiceVersion.class.getResourceAsStream("version.properties")) {
            if (in == null) {
                return "unknown";
            }
            Properties p = new Properties();
            p.load(in);
            return p.getProperty("version", "unknown");
        } catch (IOException e) {
            return "unknown";
        }
    }
}
