package io.sluice.util;

import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Temporary files and directories that name the process that made them ({@code <base><token>-...}, the
 * process's {@linkplain DirectoryClaims#token claim token} on their directory), so that what a killed
 * process left behind can be told from what a live one still uses, and deleted. A process that ends
 * normally deletes its own; one killed by {@code SIGKILL} or the OOM killer cannot, and the next process
 * of the same kind that uses the directory deletes them ({@link #deleteLeftoversOnce}). Entries of live
 * processes, which may share the directory (in this container or another on the host, whose pids this
 * process cannot see), and entries of other names are never touched.
 *
 * <p>Until 2026-12-06 the names carried the pid alone and a process counted as ended when no process of
 * that pid was visible: in a container that shares the directory but not the pid namespace, every other
 * container's live processes looked ended, and their entries (a snapshot being spilled, a job's jar copy)
 * could be deleted. Entries named that way are no longer looked at.
 *
 * <p>Threading: any thread; blocking file I/O, on I/O threads only.
 */
public final class ProcessTempFiles {
    /** The directories and bases whose leftovers this process deleted already. */
    private static final Set<String> CLEANED = ConcurrentHashMap.newKeySet();

    private ProcessTempFiles() {
    }

    /**
     * {@code <base><token>-}: the start of every name this process gives an entry of that kind in {@code
     * directory}, claiming the directory for this process on the first call ({@link DirectoryClaims#token}: a
     * lock file there, held while the process runs).
     *
     * @throws IOException if the directory or its lock file cannot be created or locked
     */
    public static String prefix(Path directory, String base) throws IOException {
        return base + DirectoryClaims.token(directory) + "-";
    }

    /**
     * Once per directory, base and process: deletes the entries of {@code directory} named
     * {@code <base><token>-...} whose process no longer runs (a directory with everything in it), by
     * {@link DirectoryClaims#deleteLeftovers}. Failures are logged; nothing is thrown. A missing directory has
     * nothing to delete.
     */
    public static void deleteLeftoversOnce(Path directory, String base) {
        if (!CLEANED.add(directory.toAbsolutePath().normalize() + "\u0000" + base)) {
            return;
        }
        DirectoryClaims.deleteLeftovers(directory, base);
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
