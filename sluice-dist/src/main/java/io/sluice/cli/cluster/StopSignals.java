package io.sluice.cli.cluster;

import sun.misc.Signal;

/**
 * Turns SIGTERM and SIGINT (Ctrl-C) into a call of {@code onStop}, instead of the JVM's default of
 * running shutdown hooks and exiting with 143/130, so that {@code sluice cluster}, {@code sluice jobmanager} and {@code sluice taskmanager} stop its jobs in
 * order and exits 0. {@code onStop} runs on the JVM's signal thread and must only release the
 * thread that does the stopping.
 */
public final class StopSignals {
    private StopSignals() {}

    @SuppressWarnings("sunapi")
    public static void install(Runnable onStop) {
        for (String name : new String[] {"TERM", "INT"}) {
            Signal.handle(new Signal(name), signal -> onStop.run());
        }
    }
}
