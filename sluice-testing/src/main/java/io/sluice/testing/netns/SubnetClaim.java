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
 * <p>Threading: {@link #claim} is thread-safe (the same JVM cannot lock one file twice; that counts
 * as taken); one instance is closed by one thread.
 */
final class SubnetClaim implements AutoCloseable {
    /** Where the lock files live: the system temporary directory, shared by every JVM of the machine. */
    static final Path DEFAULT_DIR = Path.of(System.getProperty("java.io.tmpdir"), "sluice-testnet");
    static final int FIRST = 16;
    static final int LAST = 249;

    private final int subnet;
    private final FileChannel channel;
    private final FileLock lock;

    private SubnetClaim(int subnet, FileChannel channel, FileLock lock) {
        this.subnet = subnet;
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
    static SubnetClaim claim(Path dir, IntPredicate inUse) throws IOException {
        Files.createDirectories(dir);
        List<Integer> order = new ArrayList<>();
        for (int s = FIRST; s <= LAST; s++) {
            order.add(s);
        }
        Collections.shuffle(order);
        for (int s : order) {
            FileChannel ch = FileChannel.open(dir.resolve("subnet-" + s + ".lock"), StandardOpenOption.CREATE,
                    StandardOpenOption.WRITE);
            FileLock l;
            try {
                l = ch.tryLock();
            } catch (OverlappingFileLockException heldInThisJvm) {
                l = null;
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
            return new SubnetClaim(s, ch, l);
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
    }
}
