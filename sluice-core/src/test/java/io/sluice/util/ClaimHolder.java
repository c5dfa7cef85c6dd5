package io.sluice.util;

import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * A process for {@link DirectoryClaimsTest} and {@link ProcessTempFilesTest}, holding a lock until its standard
 * input ends or it is killed. With one argument it claims that directory and prints {@code token <token>}; with
 * {@code lock <file>} it locks that file (a claim's lock file under any name, as a process of another pid
 * namespace would hold one) and prints {@code locked}.
 */
public final class ClaimHolder {
    private ClaimHolder() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length == 2 && args[0].equals("lock")) {
            try (FileChannel channel = FileChannel.open(Path.of(args[1]), StandardOpenOption.CREATE,
                    StandardOpenOption.WRITE)) {
                channel.lock();
                holdUntilInputEnds("locked");
            }
        } else {
            holdUntilInputEnds("token " + DirectoryClaims.token(Path.of(args[0])));
        }
    }

    private static void holdUntilInputEnds(String firstLine) throws Exception {
        System.out.println(firstLine);
        System.out.flush();
        while (System.in.read() >= 0) {
            // holds the lock
        }
    }
}
