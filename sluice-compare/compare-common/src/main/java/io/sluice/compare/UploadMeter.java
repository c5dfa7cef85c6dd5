package io.sluice.compare;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.HashSet;
import java.util.Set;
import java.util.stream.Stream;

/**
 * Bytes a system wrote to its checkpoint directory, measured the same way for every system, from the
 * files alone: {@link #newBytes()} walks the directory and sums the sizes of the files it has not
 * counted before, then counts them as seen. Called right after a checkpoint completed, it gives what
 * that checkpoint uploaded (its new shared files, its private files and metadata): files that
 * already existed (shared with earlier checkpoints) count once, when they were new.
 *
 * <p>A file still being written when {@link #newBytes()} runs would be counted at its size then; the
 * harnesses call it right after a completion, while the next checkpoint is seconds away.
 *
 * <p>Thread rules: one thread (the harness thread).
 */
public final class UploadMeter {
    private final Path dir;
    private final Set<Path> counted = new HashSet<>();

    public UploadMeter(Path dir) {
        this.dir = dir;
    }

    /** Counts every file there now as seen, without returning its bytes (the start of a measured window). */
    public void baseline() {
        newBytes();
    }

    /** Bytes of the files that appeared since the previous call (or {@link #baseline()}). */
    public long newBytes() {
        long bytes = 0;
        if (!Files.isDirectory(dir)) {
            return 0;
        }
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path p : (Iterable<Path>) files::iterator) {
                if (counted.contains(p)) {
                    continue;
                }
                try {
                    BasicFileAttributes a = Files.readAttributes(p, BasicFileAttributes.class);
                    if (a.isRegularFile()) {
                        counted.add(p);
                        bytes += a.size();
                    }
                } catch (NoSuchFileException gone) {
                    // deleted meanwhile (a subsumed checkpoint's file): never counted
                }
            }
        } catch (UncheckedIOException e) {
            if (!(e.getCause() instanceof NoSuchFileException)) {
                throw e;
            }
            // a directory vanished during the walk; what was counted stays counted
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot list the checkpoint directory " + dir + ": " + e.getMessage(), e);
        }
        return bytes;
    }

    /** Bytes of all files under {@code dir} now (e.g. a savepoint's directory); 0 if it does not exist. */
    public static long sizeOf(Path dir) {
        if (!Files.exists(dir)) {
            return 0;
        }
        try (Stream<Path> files = Files.walk(dir)) {
            return files.filter(Files::isRegularFile).mapToLong(p -> {
                try {
                    return Files.size(p);
                } catch (IOException e) {
                    return 0;
                }
            }).sum();
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot list " + dir + ": " + e.getMessage(), e);
        }
    }
}
