package io.sluice.util;

import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * A process for {@link ProcessTempFilesTest}: locks the file of its argument (a claim's lock file under any
 * name, as a process of another pid namespace would hold one), prints {@code locked}, and holds the lock
 * until its standard input ends or it is killed.
 */
public final class LockHolder {
    private LockHolder() {
    }

    public static void main(String[] args) throws Exception {
        try (FileChannel channel = FileChannel.open(Path.of(args[0]), StandardOpenOption.CREATE,
                StandardOpenOption.WRITE)) {
            channel.lock();
            System.out.println("locked");
            System.out.flush();
            while (System.in.read() >= 0) {
                // holds the lock
            }
        }
    }
}
