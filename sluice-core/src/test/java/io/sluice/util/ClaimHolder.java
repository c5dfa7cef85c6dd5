package io.sluice.util;

import java.nio.file.Path;

/**
 * A process for {@link DirectoryClaimsTest}: claims the directory in its argument, prints its token,
 * and holds the claim until its standard input ends or it is killed.
 */
public final class ClaimHolder {
    private ClaimHolder() {
    }

    public static void main(String[] args) throws Exception {
        System.out.println("token " + DirectoryClaims.token(Path.of(args[0])));
        System.out.flush();
        while (System.in.read() >= 0) {
            // holds the claim
        }
    }
}
