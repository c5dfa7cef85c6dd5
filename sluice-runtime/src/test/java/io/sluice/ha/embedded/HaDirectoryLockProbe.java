package io.sluice.ha.embedded;

import java.nio.file.Path;

/**
 * A second process for {@link HaDirectoryLockTest}: opens embedded HA services on a directory.
 * {@code try <dir>}: prints {@code ACQUIRED} and exits 0, or prints {@code LOCKED <message>} and exits 3.
 * {@code hold <dir>}: prints {@code ACQUIRED} and keeps the services open until its standard input closes.
 */
public final class HaDirectoryLockProbe {
    static final int LOCKED = 3;

    private HaDirectoryLockProbe() {}

    public static void main(String[] args) throws Exception {
        EmbeddedHaServices services;
        try {
            services = new EmbeddedHaServices(Path.of(args[1]));
        } catch (HaDirectoryLockedException e) {
            System.out.println("LOCKED " + e.getMessage());
            System.out.flush();
            System.exit(LOCKED);
            return;
        }
        System.out.println("ACQUIRED");
        System.out.flush();
        if (args[0].equals("hold")) {
            while (System.in.read() >= 0) {
                // until the test closes our standard input
            }
        }
        services.close();
    }
}
