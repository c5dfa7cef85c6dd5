package io.sluice.ha.embedded;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The exclusive, process-wide lock on an embedded HA directory: an operating-system file lock
 * ({@link FileChannel#tryLock()}) on {@value #FILE_NAME} in the directory, whose content names the
 * holder (pid, host, start time). Embedded HA coordinates job managers only within one JVM, so
 * two processes on one directory would both lead every job; the second one fails at start-up with
 * {@link HaDirectoryLockedException} naming the holder.
 *
 * <p>The lock belongs to the process: within the JVM it is shared through
 * {@link EmbeddedLeaderElectionService}'s per-directory registry (reference-counted there), and
 * the operating system releases it when the process ends, even on {@code kill -9}. The file itself
 * is never deleted (deleting it could let two processes lock two different files); it is emptied
 * on release.
 *
 * <p>POSIX record locks belong to the process and are dropped when the process closes <em>any</em>
 * descriptor of the file, so nothing else in the JVM may open and close the lock file while it is
 * held: the holder's record is read back through the locked channel ({@link #record()}), and a
 * channel that found the file locked from this JVM (another class loader's registry) is kept open,
 * not closed.
 *
 * <p>Threading: {@link #acquire} and {@link #release} block briefly (file I/O); call them from an
 * I/O or start-up thread, as the HA services' constructor and close do. Not thread-safe; the
 * registry serializes the calls.
 */
final class HaDirectoryLock {
    private static final Logger LOG = LoggerFactory.getLogger(HaDirectoryLock.class);
    static final String FILE_NAME = "sluice-ha.lock";
    private static final java.util.List<FileChannel> KEPT_OPEN = new java.util.concurrent.CopyOnWriteArrayList<>();

    private final Path file;
    private final FileChannel channel;
    private final FileLock lock;

    private HaDirectoryLock(Path file, FileChannel channel, FileLock lock) {
        this.file = file;
        this.channel = channel;
        this.lock = lock;
    }

    /**
     * Locks {@code directory} (which must exist) for this process and records the holder.
     *
     * @throws HaDirectoryLockedException if another process holds it
     * @throws UncheckedIOException       if the lock file cannot be created or locked
     */
    static HaDirectoryLock acquire(Path directory) {
        Path file = directory.resolve(FILE_NAME);
        FileChannel channel = null;
        try {
            channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ,
                    StandardOpenOption.WRITE);
            FileLock lock;
            try {
                lock = channel.tryLock();
            } catch (OverlappingFileLockException e) {
                // Held in this JVM outside this registry (another class loader). Closing our channel would
                // drop that holder's lock, so keep it open.
                KEPT_OPEN.add(channel);
                throw new HaDirectoryLockedException(directory, "pid " + ProcessHandle.current().pid()
                        + ", this process, through another class loader");
            }
            if (lock == null) {
                String holder = describeHolder(file);
                channel.close();
                throw new HaDirectoryLockedException(directory, holder);
            }
            channel.truncate(0);
            channel.write(ByteBuffer.wrap(holderRecord().getBytes(StandardCharsets.UTF_8)), 0);
            channel.force(false);
            LOG.debug("Locked embedded HA directory {} for pid {}", directory, ProcessHandle.current().pid());
            return new HaDirectoryLock(file, channel, lock);
        } catch (IOException e) {
            closeQuietly(channel);
            throw new UncheckedIOException("Cannot lock the embedded HA directory " + directory + " through "
                    + file + " (" + e + "); check that the directory is writable and on a file system that"
                    + " supports file locks", e);
        }
    }

    /** Empties the lock file and releases the lock. */
    void release() {
        try {
            channel.truncate(0);
            lock.release();
        } catch (IOException e) {
            LOG.warn("Could not release the lock {} cleanly ({}); it is released when this process ends", file,
                    e.toString());
        } finally {
            closeQuietly(channel);
        }
    }

    Path file() {
        return file;
    }

    /** The holder's record as written at {@link #acquire}, read through the locked channel. */
    String record() throws IOException {
        ByteBuffer buffer = ByteBuffer.allocate((int) Math.min(channel.size(), 4096));
        channel.read(buffer, 0);
        return new String(buffer.array(), 0, buffer.position(), StandardCharsets.UTF_8);
    }

    /** {@code pid=…, host=…, started=…}, one per line. */
    private static String holderRecord() {
        String host;
        try {
            host = InetAddress.getLocalHost().getHostName();
        } catch (IOException e) {
            host = "unknown";
        }
        Instant started = Instant.ofEpochMilli(ManagementFactory.getRuntimeMXBean().getStartTime());
        return "pid=" + ProcessHandle.current().pid() + "\nhost=" + host + "\nstarted=" + started
                + "\nlocked=" + Instant.now() + "\n";
    }

    /** "pid 123 on host h, started T", from the holder's record; or what can be said without it. */
    static String describeHolder(Path file) {
        String content;
        try {
            content = Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "unknown pid (" + file + " could not be read: " + e + ")";
        }
        String pid = field(content, "pid");
        if (pid == null) {
            return "unknown pid (" + file + " does not name its holder yet)";
        }
        StringBuilder s = new StringBuilder("pid ").append(pid);
        String host = field(content, "host");
        if (host != null) {
            s.append(" on host ").append(host);
        }
        String started = field(content, "started");
        if (started != null) {
            s.append(", started ").append(started);
        }
        return s.toString();
    }

    private static String field(String content, String name) {
        for (String line : content.split("\n")) {
            if (line.startsWith(name + "=")) {
                return line.substring(name.length() + 1).trim();
            }
        }
        return null;
    }

    private static void closeQuietly(FileChannel channel) {
        if (channel != null) {
            try {
                channel.close();
            } catch (IOException ignored) {
                // nothing more to do
            }
        }
    }
}
