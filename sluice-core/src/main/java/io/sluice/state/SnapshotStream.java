package io.sluice.state;

import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;

/**
 * A snapshot being read as a stream by {@link KeyedSnapshotReader}: counts the bytes the reader has
 * taken, so that a block's length can be checked against what remains when the snapshot's length is
 * known, and takes back the unread end of the prefix the header was decoded from.
 *
 * <p>Threading: the one restoring thread.
 */
final class SnapshotStream {
    private static final int BUFFER_BYTES = 64 * 1024;

    private final InputStream source;
    private final long length;
    private long consumed;
    private byte[] pushedBack = new byte[0];
    private int pushedBackPosition;
    private final DataInputStream data;

    /** @param length the snapshot's length in bytes, or -1 if unknown */
    SnapshotStream(InputStream source, long length) {
        this.source = new BufferedInputStream(source, BUFFER_BYTES);
        this.length = length;
        this.data = new DataInputStream(new InputStream() {
            @Override
            public int read() throws IOException {
                int b = pushedBackPosition < pushedBack.length ? pushedBack[pushedBackPosition++] & 0xFF
                        : SnapshotStream.this.source.read();
                if (b >= 0) {
                    consumed++;
                }
                return b;
            }

            @Override
            public int read(byte[] b, int off, int len) throws IOException {
                if (len == 0) {
                    return 0;
                }
                int n;
                if (pushedBackPosition < pushedBack.length) {
                    n = Math.min(len, pushedBack.length - pushedBackPosition);
                    System.arraycopy(pushedBack, pushedBackPosition, b, off, n);
                    pushedBackPosition += n;
                } else {
                    n = SnapshotStream.this.source.read(b, off, len);
                }
                if (n > 0) {
                    consumed += n;
                }
                return n;
            }
        });
    }

    /** The snapshot's bytes from where the reader is. */
    DataInputStream data() {
        return data;
    }

    /** Bytes not yet taken, or -1 when the length is unknown. */
    long remaining() {
        return length < 0 ? -1 : length - consumed;
    }

    /** Makes {@code prefix[from..]} (read but not used) the next bytes to read; once, before anything else is read. */
    void pushBack(byte[] prefix, int from) {
        pushedBack = prefix;
        pushedBackPosition = from;
        consumed -= prefix.length - from;
    }

    /** Reads to the end; how many bytes were left. */
    long skipToEnd() throws IOException {
        long n = 0;
        byte[] skip = new byte[8192];
        for (int r; (r = data.read(skip)) > 0; ) {
            n += r;
        }
        return n;
    }
}
