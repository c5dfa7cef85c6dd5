package io.sluice.cli.cluster;

import java.io.PrintWriter;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * How a command that started cluster processes ({@code cluster}, {@code jobmanager},
 * {@code taskmanager}) ends: it waits for SIGTERM or Ctrl-C ({@link StopSignals}), then runs its
 * stop action (stop serving, suspend or cancel what runs) and exits 0. Any other JVM shutdown
 * (SIGHUP, {@code System.exit} elsewhere) runs the same stop action from a shutdown hook, so what
 * runs still stops in order. The stop action runs once, whichever comes first.
 *
 * <p>Threading: {@link #awaitStopSignalThenStop} runs on the command's thread; the signal handlers
 * only release that wait; the stop action runs on the command's thread or on the shutdown hook's.
 */
public final class UntilStopped {
    private final CountDownLatch stopRequested = new CountDownLatch(1);
    private final AtomicBoolean stopped = new AtomicBoolean();
    private final Runnable stopAction;

    UntilStopped(Runnable stopAction) {
        this.stopAction = stopAction;
    }

    /**
     * Installs the SIGTERM and SIGINT handlers and a shutdown hook (thread
     * {@code sluice-<process>-shutdown}) for {@code stopAction}.
     */
    public static UntilStopped install(String process, Runnable stopAction) {
        UntilStopped untilStopped = new UntilStopped(stopAction);
        StopSignals.install(untilStopped::requestStop);
        Runtime.getRuntime().addShutdownHook(new Thread(untilStopped::stopOnce, "sluice-" + process + "-shutdown"));
        return untilStopped;
    }

    /** What SIGTERM and SIGINT do: release {@link #awaitStopSignalThenStop}. */
    void requestStop() {
        stopRequested.countDown();
    }

    /**
     * Waits for SIGTERM or Ctrl-C, then prints {@code stopping}, runs the stop action (unless the
     * shutdown hook ran it) and prints {@code stopped}.
     */
    public void awaitStopSignalThenStop(PrintWriter out, String stopping, String stopped) throws InterruptedException {
        stopRequested.await();
        out.println(stopping);
        out.flush();
        stopOnce();
        out.println(stopped);
        out.flush();
    }

    /** Runs the stop action; only the first call does anything. */
    void stopOnce() {
        if (stopped.compareAndSet(false, true)) {
            stopAction.run();
        }
    }
}
