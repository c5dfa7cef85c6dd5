package io.sluice.storage;

import java.io.ByteArrayInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.SequenceInputStream;
import java.io.UncheckedIOException;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Objects;

/**
 * The bytes of a blob to write with {@link BlobStore#put(String, BlobContent)}, readable as often as
 * a store needs: each {@link #open(long, long)} is a fresh stream over a range, for one part of a
 * multipart upload or for a retry. Unlike a {@code byte[]} it may be larger than 2 GB and need not be
 * in memory ({@link #ofFile(byte[], Path)}).
 *
 * <p>The content must not change while a put of it runs. A stream of {@link #ofFile} content whose file
 * got shorter meanwhile fails with an {@link EOFException} rather than ending early, so a store never
 * publishes a truncated blob.
 *
 * <p>Threading: implementations are immutable and thread-safe; {@link #open} may be called from any
 * thread, also concurrently (parts uploaded in parallel), and each stream it returns is for one thread.
 * Opening and reading a stream may block on disk I/O: never on a component main thread.
 */
public interface BlobContent {

    /** The number of bytes; fixed for the life of this content. */
    long length();

    /**
     * A fresh stream over {@code length} bytes starting at {@code offset}. The caller closes it.
     *
     * @throws IllegalArgumentException  if the range is not within {@code [0, length())}
     * @throws IOException               if the underlying data cannot be opened or read (also later, from
     *                                   {@code read}, for example an {@link EOFException} when a file
     *                                   shrank)
     */
    InputStream open(long offset, long length) throws IOException;

    /** Content of the whole {@code data} array, which must not be modified while it is written. */
    static BlobContent of(byte[] data) {
        Objects.requireNonNull(data, "data");
        return new BlobContent() {
            @Override
            public long length() {
                return data.length;
            }

            @Override
            public InputStream open(long offset, long length) {
                checkRange(offset, length, data.length);
                // No copy of the data: a view of the caller's array.
                return new ByteArrayInputStream(data, (int) offset, (int) length);
            }

            @Override
            public String toString() {
                return "BlobContent[" + data.length + " bytes in memory]";
            }
        };
    }

    /**
     * Content of {@code header} followed by the whole of {@code file}. The length is {@code header.length}
     * plus the file's size at the time of this call; the file is opened anew by each {@link #open}.
     *
     * @throws UncheckedIOException if the file's size cannot be read (for example because it does not exist)
     */
    static BlobContent ofFile(byte[] header, Path file) {
        Objects.requireNonNull(header, "header");
        Objects.requireNonNull(file, "file");
        long fileSize;
        try {
            fileSize = Files.size(file);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot write the local file " + file + " to storage: its size cannot be"
                    + " read (" + e + "); check that it exists and is readable", e);
        }
        long total = header.length + fileSize;
        return new BlobContent() {
            @Override
            public long length() {
                return total;
            }

            @Override
            public InputStream open(long offset, long length) throws IOException {
                checkRange(offset, length, total);
                long end = offset + length;
                InputStream head = null;
                if (offset < header.length) {
                    int headEnd = (int) Math.min(end, header.length);
                    head = new ByteArrayInputStream(header, (int) offset, headEnd - (int) offset);
                }
                long fileStart = Math.max(0, offset - header.length);
                long fileBytes = Math.max(0, end - header.length) - fileStart;
                if (fileBytes == 0) {
                    return head != null ? head : InputStream.nullInputStream();
                }
                FileChannel channel = FileChannel.open(file, StandardOpenOption.READ);
                try {
                    channel.position(fileStart);
                } catch (IOException | RuntimeException e) {
                    channel.close();
                    throw e;
                }
                InputStream body = new ExactLengthInputStream(Channels.newInputStream(channel), fileBytes, file);
                return head == null ? body : new SequenceInputStream(head, body);
            }

            @Override
            public String toString() {
                return "BlobContent[" + header.length + " header bytes + " + file + " (" + fileSize + " bytes)]";
            }
        };
    }

    private static void checkRange(long offset, long length, long total) {
        if (offset < 0 || length < 0 || offset > total - length) {
            throw new IllegalArgumentException("Range of " + length + " bytes at offset " + offset
                    + " is outside blob content of " + total + " bytes");
        }
    }
}
