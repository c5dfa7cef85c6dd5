package io.sluice.compare.driver;

import io.sluice.compare.Results;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Forks one harness JVM, {@code java <options> -cp <classes>:<classpath.txt> <main> --mode … --out
 * <out-dir>/<system>.tsv [--only …]}, and waits for it up to a time limit, printing progress.
 *
 * <p>Threads: {@link #run} blocks the calling thread until the harness has exited or been stopped;
 * two daemon threads per run copy the harness's stdout and stderr, each line prefixed with
 * {@code [system]}, to the driver's stdout and stderr. A JVM shutdown hook stops a running harness
 * if the driver itself is stopped. The instance holds no state of a run: several threads may each
 * run a different system at the same time (their result files differ).
 */
public final class HarnessRunner {
    /** How one system's run ended. */
    public enum Status { OK, FAILED, TIMED_OUT, NOT_BUILT }

    /**
     * One system's run.
     *
     * @param system  the system
     * @param status  how it ended
     * @param elapsed wall time of the harness JVM (zero if not started)
     * @param rows    rows in its result file (0 if none)
     * @param detail  for anything but OK, what happened and what to look at
     */
    public record Outcome(String system, Status status, Duration elapsed, int rows, String detail) {
        public boolean ok() {
            return status == Status.OK;
        }

        /** One line: "flink-1.14.6: timed out after 10m 00s; stopped. …". */
        public String describe() {
            return system + ": " + (ok() ? "ok, " + rows + " figures in " + duration(elapsed) : detail);
        }
    }

    private static final Duration STOP_GRACE = Duration.ofSeconds(10);
    private static final Duration PUMP_DRAIN = Duration.ofSeconds(5);

    private final Path javaBin;
    private final List<String> jvmOptions;
    private final Path outDir;
    private final Duration heartbeat;
    private final PrintStream log;

    /**
     * @param javaBin    the java launcher for the harness JVMs
     * @param jvmOptions the options of every harness JVM ({@link JvmOptions#forHarness})
     * @param outDir     where result files go ({@code <system>.tsv})
     * @param heartbeat  how often to print that a harness is still running
     * @param log        where the driver's own progress lines go
     */
    public HarnessRunner(Path javaBin, List<String> jvmOptions, Path outDir, Duration heartbeat, PrintStream log) {
        this.javaBin = javaBin;
        this.jvmOptions = List.copyOf(jvmOptions);
        this.outDir = outDir;
        this.heartbeat = heartbeat;
        this.log = log;
    }

    /** The java launcher of the JVM this runs in. */
    public static Path currentJava() {
        return Path.of(System.getProperty("java.home"), "bin", "java");
    }

    /** The result file of {@code system}. */
    public Path resultFile(SystemUnderTest system) {
        return outDir.resolve(system.name() + ".tsv");
    }

    /** The command line that runs {@code system}'s harness. */
    public List<String> command(SystemUnderTest system, Path root, String mode, List<String> options) {
        List<String> cmd = new ArrayList<>();
        cmd.add(javaBin.toString());
        cmd.addAll(jvmOptions);
        cmd.add("-cp");
        cmd.add(system.classpath(root));
        cmd.add(system.mainClass());
        cmd.add("--mode");
        cmd.add(mode);
        cmd.add("--out");
        cmd.add(resultFile(system).toString());
        cmd.addAll(options);
        return cmd;
    }

    /**
     * Runs {@code system}'s harness and checks its result file: OK only if the harness exited with 0
     * and its file has at least one row. A result file left from an earlier run is deleted first.
     *
     * @param label how progress lines name the run, e.g. "sluice (1/4)"
     */
    public Outcome run(SystemUnderTest system, Path root, String mode, List<String> options, Duration timeout,
                       String label) {
        Optional<String> notBuilt = system.missingBuild(root);
        if (notBuilt.isPresent()) {
            log.println("[compare] " + label + ": not run. " + notBuilt.get());
            return new Outcome(system.name(), Status.NOT_BUILT, Duration.ZERO, 0, notBuilt.get());
        }
        Path out = resultFile(system);
        List<String> cmd;
        try {
            Files.deleteIfExists(out);
            Files.createDirectories(outDir);
            cmd = command(system, root, mode, options);
        } catch (IOException | UncheckedIOException e) {
            return new Outcome(system.name(), Status.FAILED, Duration.ZERO, 0, "could not prepare its run: "
                    + e.getMessage());
        }
        log.println("[compare] " + label + ": starting, time limit " + duration(timeout));
        log.println("[compare] " + label + ": " + String.join(" ", cmd));
        long start = System.nanoTime();
        Process p;
        try {
            p = new ProcessBuilder(cmd).directory(outDir.toFile()).start();
        } catch (IOException e) {
            return new Outcome(system.name(), Status.FAILED, Duration.ZERO, 0, "could not start " + javaBin + ": "
                    + e.getMessage());
        }
        Thread stopOnExit = new Thread(() -> stop(p), "compare-stop-" + system.name());
        Runtime.getRuntime().addShutdownHook(stopOnExit);
        try {
            p.getOutputStream().close();
            Thread outPump = pump(p.getInputStream(), System.out, system.name(), "out");
            Thread errPump = pump(p.getErrorStream(), System.err, system.name(), "err");
            boolean exited = waitWithProgress(p, start, timeout, label);
            if (!exited) {
                log.println("[compare] " + label + ": time limit of " + duration(timeout) + " reached, stopping it");
                stop(p);
            }
            outPump.join(PUMP_DRAIN.toMillis());
            errPump.join(PUMP_DRAIN.toMillis());
            Duration elapsed = Duration.ofNanos(System.nanoTime() - start);
            Outcome o = check(system, out, exited, exited ? p.exitValue() : -1, elapsed, timeout);
            log.println("[compare] " + label + ": " + (o.ok() ? "finished in " + duration(elapsed) + ", "
                    + o.rows() + " figures" : o.detail()));
            return o;
        } catch (IOException e) {
            stop(p);
            return new Outcome(system.name(), Status.FAILED, Duration.ofNanos(System.nanoTime() - start), 0,
                    "lost contact with its process: " + e.getMessage());
        } catch (InterruptedException e) {
            stop(p);
            Thread.currentThread().interrupt();
            return new Outcome(system.name(), Status.FAILED, Duration.ofNanos(System.nanoTime() - start), 0,
                    "interrupted; its process was stopped");
        } finally {
            try {
                Runtime.getRuntime().removeShutdownHook(stopOnExit);
            } catch (IllegalStateException shuttingDown) {
                // the hook is running or has run: it stops the process
            }
        }
    }

    private boolean waitWithProgress(Process p, long start, Duration timeout, String label)
            throws InterruptedException {
        long deadline = start + timeout.toNanos();
        while (true) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return !p.isAlive() || p.waitFor(0, TimeUnit.NANOSECONDS);
            }
            if (p.waitFor(Math.min(left, heartbeat.toNanos()), TimeUnit.NANOSECONDS)) {
                return true;
            }
            if (System.nanoTime() - deadline < 0) {
                log.println("[compare] " + label + ": running, " + duration(Duration.ofNanos(System.nanoTime()
                        - start)) + " elapsed (limit " + duration(timeout) + ")");
            }
        }
    }

    private Outcome check(SystemUnderTest system, Path out, boolean exited, int exitCode, Duration elapsed,
                          Duration timeout) {
        int rows = 0;
        String fileProblem = null;
        if (!Files.isRegularFile(out)) {
            fileProblem = "wrote no result file (" + out + ")";
        } else {
            try {
                Results.Parsed parsed = Results.read(out);
                rows = parsed.rows().size();
                // No rows is fine only when every selected scenario was an optional one it declared not run.
                boolean declaredNotRun = parsed.headers().keySet().stream()
                        .anyMatch(h -> h.startsWith(Results.NOT_RUN_PREFIX));
                if (rows == 0 && !declaredNotRun) {
                    fileProblem = "wrote no rows to " + out;
                }
            } catch (RuntimeException e) {
                fileProblem = "wrote a result file that cannot be read: " + e.getMessage();
            }
        }
        String partial = rows > 0 ? " Its " + rows + " figures in " + out + " are in the report." : "";
        if (!exited) {
            return new Outcome(system.name(), Status.TIMED_OUT, elapsed, rows, "timed out after "
                    + duration(timeout) + " and was stopped; see its [" + system.name() + "] output above." + partial);
        }
        if (exitCode != 0) {
            return new Outcome(system.name(), Status.FAILED, elapsed, rows, "exited with code " + exitCode
                    + " after " + duration(elapsed) + "; see its [" + system.name() + "] output above." + partial);
        }
        if (fileProblem != null) {
            return new Outcome(system.name(), Status.FAILED, elapsed, rows, "exited with 0 after "
                    + duration(elapsed) + " but " + fileProblem + "; see its [" + system.name() + "] output above.");
        }
        return new Outcome(system.name(), Status.OK, elapsed, rows, "");
    }

    /** Stops the process and its descendants: politely, then forcibly after a grace period. */
    private static void stop(Process p) {
        if (!p.isAlive()) {
            return;
        }
        List<ProcessHandle> children = p.descendants().toList();
        children.forEach(ProcessHandle::destroy);
        p.destroy();
        try {
            if (!p.waitFor(STOP_GRACE.toMillis(), TimeUnit.MILLISECONDS)) {
                children.forEach(ProcessHandle::destroyForcibly);
                p.destroyForcibly();
                p.waitFor(STOP_GRACE.toMillis(), TimeUnit.MILLISECONDS);
            }
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }

    private static Thread pump(InputStream in, PrintStream to, String system, String stream) {
        Thread t = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                    to.println(prefixed(system, line));
                }
            } catch (IOException e) {
                // the process is gone and its pipe closed: nothing more to copy
            }
        }, "compare-" + system + "-" + stream);
        t.setDaemon(true);
        t.start();
        return t;
    }

    /** {@code line} with "[system] " in front, unless the harness put it there itself. */
    static String prefixed(String system, String line) {
        String prefix = "[" + system + "] ";
        return line.startsWith(prefix) ? line : prefix + line;
    }

    /** "850 ms", "12.3 s", "4m 05s", "1h 02m". */
    public static String duration(Duration d) {
        long ms = d.toMillis();
        if (ms < 1000) {
            return ms + " ms";
        }
        if (ms < 60_000) {
            return String.format(Locale.ROOT, "%.1f s", ms / 1000.0);
        }
        long s = d.toSeconds();
        if (s < 3600) {
            return String.format(Locale.ROOT, "%dm %02ds", s / 60, s % 60);
        }
        return String.format(Locale.ROOT, "%dh %02dm", s / 3600, (s % 3600) / 60);
    }
}
