package io.sluice.testing.process;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import io.sluice.util.ProcessTempFiles;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * JVM options that let every process a test starts from one jar map the classes that jar's processes load from one
 * class-data-sharing archive (the JDK's dynamic CDS archive, {@code -XX:SharedArchiveFile}), instead of reading,
 * parsing and verifying them again in each process. The suite's process tests start a few hundred JVMs of
 * {@code sluice.jar} on a machine whose two cores the suite keeps busy; measured here, a {@code sluice cluster} JVM
 * used 2.1-2.8 s of CPU until it served, 1.2-1.3 s with the archive (docs/testing.md, "One class archive for the
 * processes").
 *
 * <p>The archive is made once per jar (path, size and modification time), JVM and directory by the first caller:
 * a training run of the jar ({@code java -XX:ArchiveClassesAtExit=… -jar <jar> <arguments>}) that is stopped
 * (SIGTERM) once it printed a line containing the given mark; the JDK writes the archive as that JVM exits. Its
 * file appears under its final name only when complete, under a lock on a file beside it, so the forks of a build,
 * and two builds, never use or make a half-written one. When the training run fails, the options are empty and the
 * processes start as they did without (the reason is logged): an archive only saves time. A JVM that cannot use the
 * archive (another JDK build) starts without it; {@code -Xlog:cds=off} keeps its warning out of the process's
 * output, which tests read.
 *
 * <p>{@code -Dsluice.test.class-archive=false} turns the archive off (to compare).
 *
 * <p>Threading: {@link #jvmOptions} is thread-safe (serialized on the class, and across processes on the lock file).
 */
public final class SharedClassArchive {
    private static final Logger LOG = LoggerFactory.getLogger(SharedClassArchive.class);
    private static final Map<Path, List<String>> MADE = new HashMap<>();

    private SharedClassArchive() {}

    /**
     * The options that make a JVM of {@code jar} use the archive in {@code directory}, made first if missing.
     *
     * @param jar the jar every process runs with {@code -jar}
     * @param directory where the archive (and its lock file) lives; created if missing
     * @param trainingArguments the arguments after {@code -jar <jar>} of the training run
     * @param readyMark a text the training run prints (standard output or error) once it loaded the classes to keep
     * @return {@code -XX:SharedArchiveFile=…} and the options that keep the JVM's CDS messages out of its output, or
     *     nothing when the archive is turned off or could not be made
     */
    public static synchronized List<String> jvmOptions(Path jar, Path directory, List<String> trainingArguments,
            String readyMark) {
        if (!Boolean.parseBoolean(System.getProperty("sluice.test.class-archive", "true"))) {
            return List.of();
        }
        Path archive;
        try {
            archive = directory.toAbsolutePath().resolve("classes-" + key(jar) + ".jsa");
        } catch (IOException e) {
            LOG.warn("No class archive for {} ({}); its processes start without one", jar, e.toString());
            return List.of();
        }
        return MADE.computeIfAbsent(archive, a -> made(jar, a, trainingArguments, readyMark)
                ? List.of("-XX:SharedArchiveFile=" + a, "-Xlog:cds=off", "-Xlog:cds+dynamic=off")
                : List.of());
    }

    private static boolean made(Path jar, Path archive, List<String> trainingArguments, String readyMark) {
        try {
            Files.createDirectories(archive.getParent());
            Path lockFile = archive.resolveSibling(archive.getFileName() + ".lock");
            try (FileChannel channel = FileChannel.open(lockFile, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
                    FileLock ignored = channel.lock()) {
                if (Files.exists(archive)) {
                    return true;
                }
                long started = System.nanoTime();
                Path partial = archive.resolveSibling(archive.getFileName() + ".partial");
                Files.deleteIfExists(partial);
                train(jar, partial, trainingArguments, readyMark);
                if (!Files.isRegularFile(partial) || Files.size(partial) == 0) {
                    LOG.warn("The training run of {} wrote no class archive; its processes start without one", jar);
                    return false;
                }
                Files.move(partial, archive, StandardCopyOption.ATOMIC_MOVE);
                LOG.info("Class archive {} ({} MB) made in {} ms", archive, Files.size(archive) >> 20,
                        TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
                return true;
            }
        } catch (IOException e) {
            LOG.warn("No class archive for {} ({}); its processes start without one", jar, e.toString());
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private static void train(Path jar, Path partial, List<String> arguments, String readyMark)
            throws IOException, InterruptedException {
        Path workingDirectory = Files.createTempDirectory("sluice-class-archive");
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:ArchiveClassesAtExit=" + partial, "-Xlog:cds=off", "-Xlog:cds+dynamic=off", "-Xmx320m",
                "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-jar", jar.toAbsolutePath().toString()));
        command.addAll(arguments);
        Process process = new ProcessBuilder(command).directory(workingDirectory.toFile()).redirectErrorStream(true)
                .start();
        // A run that neither prints the mark nor ends is stopped after two minutes (its output then ends).
        CompletableFuture.delayedExecutor(120, TimeUnit.SECONDS).execute(process::destroyForcibly);
        try {
            boolean ready = false;
            try (BufferedReader out = new BufferedReader(
                    new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while (!ready && (line = out.readLine()) != null) {
                    ready = line.contains(readyMark);
                }
            }
            // SIGTERM: the JVM exits through its shutdown hooks and writes the archive as it exits. (Destroying
            // the process closes this side of its output, so nothing is read after it.)
            process.destroy();
            if (!process.waitFor(120, TimeUnit.SECONDS)) {
                LOG.warn("The training run of {} did not exit within 120 s of its stop", jar);
            }
            if (!ready) {
                LOG.warn("The training run of {} ended (exit {}) without printing '{}'", jar, process.exitValue(),
                        readyMark);
                Files.deleteIfExists(partial);
            }
        } finally {
            process.destroyForcibly();
            ProcessTempFiles.deleteTree(workingDirectory);
        }
    }

    /** The jar's path, size and modification time and the JVM's build: an archive fits exactly these. */
    private static String key(Path jar) throws IOException {
        String identity = String.join("\n", jar.toAbsolutePath().toString(), Long.toString(Files.size(jar)),
                Files.getLastModifiedTime(jar).toString(), System.getProperty("java.home"),
                System.getProperty("java.vm.version"));
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(identity.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest, 0, 8);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    }
}
