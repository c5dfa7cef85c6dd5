package io.sluice.ha.embedded;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * The file operations of the embedded HA stores: atomic replacement of a small file, and listing
 * a directory without the temporary files of writes in progress.
 *
 * <p>A write goes to {@code .<name>.tmp-<uuid>} in the target's directory, is forced to disk and
 * then renamed over the target with {@link StandardCopyOption#ATOMIC_MOVE}, so a reader sees the
 * old content or the new, never a partial file. Names starting with {@code .} are temporary and
 * never listed. Stateless; blocking; called from I/O threads only.
 */
final class AtomicFiles {
    private AtomicFiles() {}

    /** Replaces {@code target} with {@code data} atomically, creating its directory if needed. */
    static void write(Path target, byte[] data) throws IOException {
        Path dir = target.toAbsolutePath().getParent();
        Files.createDirectories(dir);
        Path temp = dir.resolve("." + target.getFileName() + ".tmp-" + UUID.randomUUID());
        try {
            try (FileChannel ch = FileChannel.open(temp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
                ByteBuffer buffer = ByteBuffer.wrap(data);
                while (buffer.hasRemaining()) {
                    ch.write(buffer);
                }
                ch.force(true);
            }
            Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE);
        } finally {
            Files.deleteIfExists(temp);
        }
    }

    /**
     * Creates {@code target} with {@code data} only if it does not exist: the data goes to a
     * temporary file (forced to disk) that is then hard-linked to {@code target}, which fails if the
     * name exists, so readers never see a partial file. Where hard links are not supported, falls
     * back to {@code CREATE_NEW} on the target itself. Returns false, writing nothing, if
     * {@code target} exists.
     */
    static boolean createExclusively(Path target, byte[] data) throws IOException {
        Path dir = target.toAbsolutePath().getParent();
        Files.createDirectories(dir);
        Path temp = dir.resolve("." + target.getFileName() + ".tmp-" + UUID.randomUUID());
        try {
            writeNew(temp, data);
            try {
                Files.createLink(target, temp);
                return true;
            } catch (java.nio.file.FileAlreadyExistsException e) {
                return false;
            } catch (UnsupportedOperationException e) {
                try {
                    writeNew(target, data);
                    return true;
                } catch (java.nio.file.FileAlreadyExistsException exists) {
                    return false;
                }
            }
        } finally {
            Files.deleteIfExists(temp);
        }
    }

    private static void writeNew(Path file, byte[] data) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            ByteBuffer buffer = ByteBuffer.wrap(data);
            while (buffer.hasRemaining()) {
                ch.write(buffer);
            }
            ch.force(true);
        }
    }

    /** The names of the non-temporary entries of {@code dir}, sorted; empty if {@code dir} does not exist. */
    static List<String> list(Path dir) throws IOException {
        List<String> names = new ArrayList<>();
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir)) {
            for (Path entry : entries) {
                String name = entry.getFileName().toString();
                if (!name.startsWith(".")) {
                    names.add(name);
                }
            }
        } catch (NoSuchFileException e) {
            return List.of();
        }
        names.sort(null);
        return names;
    }
}
