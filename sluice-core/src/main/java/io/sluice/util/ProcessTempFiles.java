package io.sluice.util;

import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Temporary files and directories that name the process that made them ({@code <base><pid>-...}), so
 * that what a killed process left behind can be told from what a live one still uses, and deleted.
 * A process that ends normally deletes its own; one killed by {@code SIGKILL} or the OOM killer cannot,
 * and the next process of the same kind that uses the directory deletes them
 * ({@link #deleteLeftoversOnce}). Entries of live processes, which may share the directory, and entries
 * of other names are never touched. A pid reused by a live process keeps its entries until that
 * process ends too.
 *
 * <p>Threading: any thread; blocking file I/O, on I/O threads only.
 */
public final class ProcessTempFiles {
    private static final Logger LOG = LoggerFactory.getLogger(ProcessTempFiles.class);
    /** The directories and bases whose leftovers this process deleted already. */
    private static final Set<String> CLEANED = ConcurrentHashMap.newKeySet();

    private ProcessTempFiles() {
    }

    /** {@code <base><pid of this process>-}: the start of every name this process gives an entry of that kind. */
    public static String prefix(String base) {
        return base + ProcessHandle.current().pid() + "-";
    }

    /** The pid in {@code name} if it is {@code <base><pid>-...}; empty for any other name. */
    public static OptionalLong ownerPid(String name, String base) {
        if (!name.startsWith(base)) {
            return OptionalLong.empty();
        }
        int dash = name.indexOf('-', base.length());
        if (dash <= base.length()) {
            return OptionalLong.empty();
        }
        try {
            return OptionalLong.of(Long.parseLong(name.substring(base.length(), dash)));
        } catch (NumberFormatException e) {
            return OptionalLong.empty();
        }
    }

    /**
     * Once per directory, base and process: deletes the entries of {@code directory} named
     * {@code <base><pid>-...} whose process no longer runs (a directory with everything in it). Failures
     * are logged; nothing is thrown. A missing directory has nothing to delete.
     */
    public static void deleteLeftoversOnce(Path directory, String base) {
        if (!CLEANED.add(directory.toAbsolutePath().normalize() + "\u0000" + base)) {
            return;
        }
        if (!Files.isDirectory(directory)) {
            return;
        }
        try (Stream<Path> entries = Files.list(directory)) {
            entries.filter(e -> ownerPid(e.getFileName().toString(), base).stream()
                            .anyMatch(pid -> ProcessHandle.of(pid).isEmpty()))
                    .forEach(e -> {
                        try {
                            deleteTree(e);
                            LOG.info("Deleted {}, left by a process that no longer runs", e);
                        } catch (IOException x) {
                            LOG.warn("Could not delete {}, left by a process that no longer runs: {}", e, x.toString());
                        }
                    });
        } catch (IOException e) {
            LOG.warn("Could not look for files left by ended processes in {}: {}", directory, e.toString());
        }
    }

    /** Deletes {@code path}: a file, or a directory with everything in it. A missing path is no error. */
    public static void deleteTree(Path path) throws IOException {
        if (!Files.isDirectory(path, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
            Files.deleteIfExists(path);
            return;
        }
        Files.walkFileTree(path, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                Files.deleteIfExists(file);
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult postVisitDirectory(Path dir, IOException e) throws IOException {
                if (e != null) {
                    throw e;
                }
                Files.deleteIfExists(dir);
                return FileVisitResult.CONTINUE;
            }
        });
    }
}
