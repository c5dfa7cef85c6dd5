package io.sluice.util;

import java.nio.file.Path;

/**
 * A process for {@link DirectoryClaimsTest}: deletes what ended processes left in the directory of its first
 * argument ({@link DirectoryClaims#deleteLeftovers}, entries named by its second), then ends.
 */
public final class LeftoverSweeper {
    private LeftoverSweeper() {
    }

    public static void main(String[] args) {
        DirectoryClaims.deleteLeftovers(Path.of(args[0]), args[1]);
    }
}
