package io.sluice.e2e;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

/** File helpers of the end-to-end tests. Test code only. */
final class TestFiles {
    private TestFiles() {}

    /** Copies the directory {@code from} with everything under it to {@code to} (created); returns {@code to}. */
    static Path copyTree(Path from, Path to) throws IOException {
        Files.createDirectories(to);
        try (Stream<Path> all = Files.walk(from)) {
            for (Path p : all.toList()) {
                Path target = to.resolve(from.relativize(p).toString());
                if (Files.isDirectory(p)) {
                    Files.createDirectories(target);
                } else {
                    Files.copy(p, target);
                }
            }
        }
        return to;
    }
}
