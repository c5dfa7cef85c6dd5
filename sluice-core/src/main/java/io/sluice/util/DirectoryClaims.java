package io.sluice.util;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Working directories that several processes share (RocksDB's local directory: task managers on one
 * host, in one container or several), where each process's entries must be deleted after it was
 * killed ({@code SIGKILL}, the OOM killer) and never while it runs.
 *
 * <p>A process {@linkplain #token claims} such a directory once: it creates
 * {@code .owner-<pid>-<random>.lock} there and holds an exclusive lock on it until it ends, when the
 * operating system lets the lock go however the process ended. Its entries are named
 * {@code <base><token>-...}. {@link #deleteLeftovers} tries each other owner's lock: one that can be
 * taken belongs to an ended process, whose entries are deleted, and its lock file once no entry of any
 * base of that owner is left (a directory may hold entries of several kinds, each swept by its own base);
 * one held by a live process, in this container or another on the same host, is left alone. Unlike a
 * pid, a lock is neither reused by a new process nor ambiguous across pid namespaces. The directory must
 * be on a local file system (locks on network file systems are not reliable).
 *
 * <p>A process never opens a lock file whose token carries its own pid: such locks are held per process, not
 * per channel, and closing a second channel on a file whose lock the process holds releases that lock (POSIX
 * {@code fcntl} semantics). An ended process whose pid equals this one's (another pid namespace) is swept by
 * processes with other pids.
 *
 * <p>Threading: any thread; blocking file I/O, on task or I/O threads only. Sweeps of one process take turns
 * per lock file (two tasks of one task manager starting together after a crash sweep the same ended owners).
 */
public final class DirectoryClaims {
    private static final Logger LOG = LoggerFactory.getLogger(DirectoryClaims.class);
    private static final String LOCK_PREFIX = ".owner-";
    /**
     * A lock file being made, never looked at by other processes (one could take its lock before its maker
     * does). A process killed in that instant leaves an empty file of this name.
     */
    private static final String MAKING_PREFIX = ".making-";
    private static final String LOCK_SUFFIX = ".lock";
    /** This process's claims: directory to its held lock. Never released: the process's end releases them. */
    private static final Map<Path, Claim> CLAIMS = new ConcurrentHashMap<>();

    /**
     * Taken while one lock file is tried and its owner's entries deleted: sweeps of this process take turns. Locks
     * are the process's, so a second thread trying a lock the first holds would get an overlapping lock, not the
     * answer "ended".
     */
    private static final Object SWEEPS = new Object();
    /** Channels whose closing would release a lock this process holds (see deleteIfEnded); never closed. */
    private static final List<FileChannel> KEPT_OPEN = new java.util.concurrent.CopyOnWriteArrayList<>();

    private record Claim(String token, FileChannel channel, FileLock lock) {
    }

    private DirectoryClaims() {
    }

    /**
     * This process's token in {@code directory} ({@code <pid>-<random>}), claiming the directory (creating
     * it and the lock file) on the first call for it.
     *
     * @throws IOException if the directory or the lock file cannot be created or locked
     */
    public static String token(Path directory) throws IOException {
        Path key = directory.toAbsolutePath().normalize();
        Claim existing = CLAIMS.get(key);
        if (existing != null) {
            return existing.token();
        }
        synchronized (CLAIMS) {
            existing = CLAIMS.get(key);
            if (existing != null) {
                return existing.token();
            }
            Files.createDirectories(key);
            String token = ProcessHandle.current().pid() + "-" + UUID.randomUUID().toString().substring(0, 8);
            // Locked under a name no other process looks at, then renamed: another process never takes the lock
            // of a claim being made for a dead owner's.
            Path making = key.resolve(MAKING_PREFIX + token + LOCK_SUFFIX);
            FileChannel channel = FileChannel.open(making, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
            try {
                FileLock lock = channel.lock();
                Files.move(making, key.resolve(LOCK_PREFIX + token + LOCK_SUFFIX), StandardCopyOption.ATOMIC_MOVE);
                CLAIMS.put(key, new Claim(token, channel, lock));
            } catch (IOException | RuntimeException e) {
                channel.close();
                Files.deleteIfExists(making);
                throw e;
            }
            return token;
        }
    }

    /**
     * Deletes the entries of {@code directory} named {@code <base><token>-...} whose owner (by the token's
     * lock file) no longer runs, then that owner's lock file. Owners that still hold their lock, and every
     * token of this process's pid, are left alone, and so is every other name. Failures are logged; nothing is
     * thrown. A missing directory has nothing to delete.
     */
    public static void deleteLeftovers(Path directory, String base) {
        Path key = directory.toAbsolutePath().normalize();
        if (!Files.isDirectory(key)) {
            return;
        }
        List<Path> locks;
        try (Stream<Path> entries = Files.list(key)) {
            locks = entries.filter(DirectoryClaims::isLockFile).toList();
        } catch (IOException e) {
            LOG.warn("Could not look for files left by ended processes in {}: {}", key, e.toString());
            return;
        }
        String ownPid = ProcessHandle.current().pid() + "-";
        for (Path lockFile : locks) {
            String name = lockFile.getFileName().toString();
            String token = name.substring(LOCK_PREFIX.length(), name.length() - LOCK_SUFFIX.length());
            if (token.startsWith(ownPid)) {
                // This process's, or (rarely) a process's with the same pid in another pid namespace: never opened.
                // Locks are the process's, not the channel's: closing a second channel on a lock file this process
                // holds, through a claim this copy of the class does not know (another class loader's copy, or a
                // claim a concurrent token() has renamed into place but not yet recorded), would release it, and
                // another process's next sweep would delete this live process's entries. An ended process's
                // entries under a pid equal to this one's are left to the sweeps of processes with other pids.
                continue;
            }
            synchronized (SWEEPS) {
                deleteIfEnded(key, lockFile, token, base);
            }
        }
    }

    /** How many lock files' channels are held open because their lock overlapped one of this process (tests). */
    static int channelsKeptOpen() {
        return KEPT_OPEN.size();
    }

    private static boolean isLockFile(Path p) {
        String name = p.getFileName().toString();
        return name.startsWith(LOCK_PREFIX) && name.endsWith(LOCK_SUFFIX)
                && name.length() > LOCK_PREFIX.length() + LOCK_SUFFIX.length();
    }

    private static void deleteIfEnded(Path directory, Path lockFile, String token, String base) {
        @Nullable FileChannel channel = null;
        try {
            channel = FileChannel.open(lockFile, StandardOpenOption.WRITE);
            FileLock lock;
            try {
                lock = channel.tryLock();
            } catch (OverlappingFileLockException e) {
                // Held by this process under another pid's token: deleteLeftovers skips this process's pid, so this
                // cannot be. Closing this channel would release that lock, so it stays open while the process runs.
                KEPT_OPEN.add(channel);
                channel = null;
                LOG.warn("{} in {} is locked by this process under another process's token; its entries are kept",
                        lockFile.getFileName(), directory);
                return;
            }
            if (lock == null) {
                return; // held by a live process
            }
            boolean othersLeft;
            try (Stream<Path> entries = Files.list(directory)) {
                List<Path> named = entries.filter(e -> e.getFileName().toString().contains(token + "-")).toList();
                othersLeft = false;
                for (Path e : named) {
                    if (e.getFileName().toString().startsWith(base + token + "-")) {
                        ProcessTempFiles.deleteTree(e);
                        LOG.info("Deleted {}, left by a process that no longer runs", e);
                    } else {
                        othersLeft = true;
                    }
                }
            }
            if (!othersLeft) {
                // Entries of another base of the same owner keep the lock file, for the sweep of that base.
                Files.deleteIfExists(lockFile);
            }
            lock.release();
        } catch (java.nio.file.NoSuchFileException e) {
            // another process deleted it first
        } catch (IOException e) {
            LOG.warn("Could not delete what the process of {} left in {}: {}", lockFile.getFileName(), directory,
                    e.toString());
        } finally {
            closeQuietly(channel);
        }
    }

    private static void closeQuietly(@Nullable FileChannel channel) {
        if (channel == null) {
            return;
        }
        try {
            channel.close();
        } catch (IOException e) {
            LOG.debug("Closing a lock file's channel failed: {}", e.toString());
        }
    }
}
