package io.sluice.storage;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.util.Objects;

/**
 * Delivers exactly {@code length} bytes of a file, failing with an {@link EOFException} if the file
 * ends earlier (it shrank after the content was created). Threading: one thread.
 */
final class ExactLengthInputStream extends InputStream {
    private final InputStream in;
    private final Path file;
    private long remaining;

    ExactLengthInputStream(InputStream in, long length, Path file) {
        this.in = in;
        this.remaining = length;
        this.file = file;
    }

    @Override
    public int read() throws IOException {
        byte[] one = new byte[1];
        int n = read(one, 0, 1);
        return n < 0 ? -1 : one[0] & 0xFF;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        Objects.checkFromIndexSize(off, len, b.length);
        if (len == 0) {
            return 0;
        }
        if (remaining == 0) {
            return -1;
        }
        int n = in.read(b, off, (int) Math.min(len, remaining));
        if (n < 0) {
            throw new EOFException("File " + file + " ended " + remaining + " bytes early: it got shorter"
                    + " while it was being written to storage (the file must not change until the write"
                    + " completes)");
        }
        remaining -= n;
        return n;
    }

    @Override
    public int available() throws IOException {
        return (int) Math.min(in.available(), remaining);
    }

    @Override
    public void close() throws IOException {
        in.close();
    }
}
