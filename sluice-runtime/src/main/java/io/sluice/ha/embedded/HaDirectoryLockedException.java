package io.sluice.ha.embedded;

import io.sluice.config.HighAvailabilityOptions;
import java.nio.file.Path;

/**
 * Another process holds the embedded HA directory (see {@link HaDirectoryLock}). The message
 * names the directory, the holder (pid, host, start time) and what to do.
 */
public final class HaDirectoryLockedException extends IllegalStateException {
    private final Path directory;
    private final String holder;

    HaDirectoryLockedException(Path directory, String holder) {
        super("The embedded HA directory " + directory + " is in use by another Sluice process (" + holder
                + "). Embedded HA coordinates job managers within one process only, so two processes on one"
                + " directory would both run every job. Stop that process first, give this one its own directory ("
                + HighAvailabilityOptions.DIRECTORY.key() + "), or use " + HighAvailabilityOptions.TYPE.key()
                + ": zookeeper to run job managers in several processes.");
        this.directory = directory;
        this.holder = holder;
    }

    public Path directory() {
        return directory;
    }

    /** The holder as recorded in the lock file, e.g. {@code pid 4711 on host h1, started 2026-...}. */
    public String holder() {
        return holder;
    }
}
