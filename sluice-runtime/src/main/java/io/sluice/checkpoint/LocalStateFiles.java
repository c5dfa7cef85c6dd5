package io.sluice.checkpoint;

import io.sluice.storage.BlobContent;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.UUID;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.zip.CRC32C;

/**
 * The local-file side of {@link CheckpointStorage}'s streamed state files: a local file framed as a state file
 * for upload, a download into a temporary sibling published only when complete, a hard link (or copy) published
 * atomically, and work through a temporary file. Never a whole file in memory.
 *
 * <p>Stateless; blocking file I/O, on I/O threads only (as the storage calling it).
 */
final class LocalStateFiles {
    private static final int COPY_BUFFER_BYTES = 64 * 1024;

    private LocalStateFiles() {
    }

    /**
     * The state file of the local {@code file}: its CRC32C computed in one pass, then header and file as a
     * {@link BlobContent}. {@code destination} names the upload in errors.
     *
     * @throws UncheckedIOException if the file cannot be read or changes meanwhile
     */
    static BlobContent contentOf(Path file, String destination) {
        try {
            long size = Files.size(file);
            CRC32C crc = new CRC32C();
            long read = 0;
            try (InputStream in = Files.newInputStream(file)) {
                byte[] buf = new byte[COPY_BUFFER_BYTES];
                int n;
                while ((n = in.read(buf)) >= 0) {
                    crc.update(buf, 0, n);
                    read += n;
                }
            }
            if (read != size) {
                throw new IOException("it changed while its checksum was computed (" + size + " bytes, then " + read
                        + "); it must not change until it is uploaded");
            }
            return contentOf(file, size, (int) crc.getValue(), destination);
        } catch (IOException e) {
            throw unreadable(file, destination, e);
        }
    }

    /**
     * The state file of the local {@code file}, whose {@code length} bytes and CRC32C {@code crc32c} its writer
     * computed as it wrote it (no second pass over the file).
     *
     * @throws UncheckedIOException if the file cannot be read or has another length
     */
    static BlobContent contentOf(Path file, long length, int crc32c, String destination) {
        try {
            byte[] header = StateFileFormat.header(length, crc32c);
            BlobContent content = BlobContent.ofFile(header, file);
            if (content.length() != header.length + length) {
                throw new IOException("it holds " + (content.length() - header.length) + " bytes, its writer wrote "
                        + length + "; it must not change until it is uploaded");
            }
            return content;
        } catch (IOException e) {
            throw unreadable(file, destination, e);
        } catch (UncheckedIOException e) {
            throw unreadable(file, destination, e.getCause());
        }
    }

    private static UncheckedIOException unreadable(Path file, String destination, IOException e) {
        return new UncheckedIOException("Could not read the local state file " + file + " to upload it to "
                + destination + ": " + e.getMessage(), e);
    }

    /**
     * Copies the stream {@code source} opens to {@code target} through a temporary sibling that replaces
     * {@code target} only when the stream was read to its end (where a state file's checksum is checked); on any
     * failure the sibling is deleted. A read failure becomes {@code readFailure}'s exception.
     *
     * @throws UncheckedIOException if the local file cannot be written
     */
    static void download(Supplier<InputStream> source, Path target, String path,
                         Function<IOException, RuntimeException> readFailure) {
        Path temp = target.resolveSibling("." + target.getFileName() + "." + UUID.randomUUID() + ".download");
        boolean done = false;
        try (InputStream in = source.get();
             OutputStream out = Files.newOutputStream(temp, StandardOpenOption.CREATE_NEW)) {
            byte[] buf = new byte[COPY_BUFFER_BYTES];
            while (true) {
                int n;
                try {
                    n = in.read(buf);
                } catch (IOException e) {
                    throw readFailure.apply(e);
                }
                if (n < 0) {
                    break;
                }
                out.write(buf, 0, n);
            }
            out.close(); // before the move; closing twice is harmless
            Files.move(temp, target, StandardCopyOption.REPLACE_EXISTING);
            done = true;
        } catch (IOException e) {
            throw new UncheckedIOException("Could not write the downloaded state file " + path + " to " + target
                    + ": " + e.getMessage(), e);
        } finally {
            if (!done) {
                deleteQuietly(temp); // the local directory is scratch space
            }
        }
    }

    /**
     * Makes {@code to} a hard link to {@code from} (a copy where no link is possible, e.g. across file systems),
     * through a hidden sibling moved into place atomically; the size of {@code to}.
     *
     * @throws NoSuchFileException if {@code from} does not exist
     */
    static long linkOrCopy(Path from, Path to) throws IOException {
        Path temp = to.resolveSibling("." + to.getFileName() + "." + UUID.randomUUID() + ".link");
        try {
            Files.createDirectories(to.getParent());
            try {
                Files.createLink(temp, from);
            } catch (UnsupportedOperationException | IOException linkFailed) {
                if (!Files.exists(from)) {
                    throw linkFailed instanceof NoSuchFileException nf ? nf : new NoSuchFileException(from.toString());
                }
                Files.copy(from, temp);
            }
            Files.move(temp, to, StandardCopyOption.ATOMIC_MOVE);
            return Files.size(to);
        } catch (IOException e) {
            deleteQuietly(temp);
            throw e;
        }
    }

    /**
     * Runs {@code work} on a fresh temporary file in {@code java.io.tmpdir} and deletes it after; the bytes the
     * temporary file held, as stored in a state file (header and payload). {@code what} names the copy in errors.
     */
    static long viaTemporaryFile(Consumer<Path> work, String what) {
        Path local = null;
        try {
            local = Files.createTempFile("sluice-copy-", ".tmp");
            work.accept(local);
            long payload = Files.size(local);
            return StateFileFormat.header(payload, 0).length + payload;
        } catch (IOException e) {
            throw new UncheckedIOException("Could not copy " + what + " through a local temporary file (" + e
                    + "): it needs room for the file in java.io.tmpdir", e);
        } finally {
            if (local != null) {
                deleteQuietly(local);
            }
        }
    }

    private static void deleteQuietly(Path file) {
        try {
            Files.deleteIfExists(file);
        } catch (IOException ignored) {
            // a leftover temporary file
        }
    }
}
