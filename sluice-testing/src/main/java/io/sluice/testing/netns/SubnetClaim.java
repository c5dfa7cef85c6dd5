package io.sluice.testing.netns;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.function.IntPredicate;

/**
 * One {@code 10.77.<subnet>.0/24} (and the namespace and link name tag derived from it) held by one
 * {@link TestNetwork} of this machine at a time, across test JVMs: an exclusive lock on
 * {@code <dir>/subnet-<n>.lock}, released by {@link #close} or when the JVM exits, also when it is
 * killed. Parallel test forks (failsafe {@code forkCount > 1}) and concurrent builds therefore never
 * make two networks with the same addresses or names, where random picks alone would now and then.
 *
 * <p>Threading: {@link #claim} and {@link #close} are thread-safe (serialized on the class; a subnet this
 * JVM holds counts as taken, and its lock file is not opened again while held).
 */
final class SubnetClaim implements AutoCloseable {
    /** Where the lock files live: the system temporary directory, shared by every JVM of the machine. */
    static final Path DEFAULT_DIR = Path.of(System.getProperty("java.io.tmpdir"), "sluice-testnet");
    static final int FIRST = 16;
    static final int LAST = 249;
    /**
     * The lock files this class's claims hold, never opened again while held: POSIX locks belong to the process,
     * so closing a second channel on a held file would drop the claim's lock, and another process could then claim
     * the same subnet.
     */
    private static final java.util.Set<Path> HELD = java.util.concurrent.ConcurrentHashMap.newKeySet();
    /** Channels that found a file locked by this JVM outside {@link #HELD} (another class loader's copy). */
    private static final java.util.List<FileChannel> KEPT_OPEN = new java.util.concurrent.CopyOnWriteArrayList<>();

    private final int subnet;
    private final Path file;
    private final FileChannel channel;
    private final FileLock lock;

    private SubnetClaim(int subnet, Path file, FileChannel channel, FileLock lock) {
        this.subnet = subnet;
        this.file = file;
        this.channel = channel;
        this.lock = lock;
    }

    /**
     * Claims a free subnet between {@value #FIRST} and {@value #LAST}, trying them in random order and
     * skipping those {@code inUse} reports (addresses left on this machine by a test that was killed
     * before it could clean up).
     *
     * @throws IOException if every subnet is taken or the lock directory cannot be written
     */
    static synchronized SubnetClaim claim(Path dir, IntPredicate inUse) throws IOException {
        Files.createDirectories(dir);
        List<Integer> order = new ArrayList<>();
        for (int s = FIRST; s <= LAST; s++) {
            order.add(s);
        }
        Collections.shuffle(order);
        for (int s : order) {
            Path file = dir.resolve("subnet-" + s + ".lock").toAbsolutePath().normalize();
            if (HELD.contains(file)) {
                continue;
            }
            FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
            FileLock l;
            try {
                l = ch.tryLock();
            } catch (OverlappingFileLockException heldInThisJvm) {
                // Held by another class loader's copy: closing this channel would drop that lock (see HELD).
                KEPT_OPEN.add(ch);
                continue;
            }
            if (l == null) {
                ch.close();
                continue;
            }
            if (inUse.test(s)) {
                l.release();
                ch.close();
                continue;
            }
            HELD.add(file);
            return new SubnetClaim(s, file, ch, l);
        }
        throw new IOException("every test subnet 10.77." + FIRST + "-" + LAST + ".0/24 is held (lock files in " + dir
                + "); stop the other tests that use test hosts, or remove leftover addresses with"
                + " 'ip addr show dev lo' / 'ip netns list'");
    }

    int subnet() {
        return subnet;
    }

    /** Four hex digits naming this claim's namespaces and links: the subnet, then {@code salt}'s low byte. */
    String tag(int salt) {
        return String.format("%02x%02x", subnet, salt & 0xff);
    }

    @Override
    public void close() {
        synchronized (SubnetClaim.class) { // with claim: the file leaves HELD only once its lock is released
            if (!HELD.contains(file)) {
                return; // closed before
            }
            try {
                lock.release();
            } catch (IOException e) {
                // the channel closes below, which releases it too
            }
            try {
                channel.close();
            } catch (IOException e) {
                // nothing more to release
            }
            HELD.remove(file);
        }
    }
}
