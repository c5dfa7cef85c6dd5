package io.sluice.checkpoint;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.SequenceInputStream;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Objects;
import java.util.zip.CRC32C;

/**
 * The layout of a {@code .state} file: a small header with a checksum around the serialized
 * keyed-state snapshot, so that a flipped bit or foreign bytes are detected before a single value
 * is restored. Big-endian.
 *
 * <pre>
 * version 1 (payloads up to Integer.MAX_VALUE bytes)    version 2 (larger payloads)
 * int  MAGIC     "SLSF"                                  int  MAGIC     "SLSF"
 * int  VERSION   1                                       int  VERSION   2
 * int  length    of the payload                          long length    of the payload
 * int  crc32c    CRC32C of the payload                   int  crc32c    CRC32C of the payload
 * byte[length]   payload: the keyed-state snapshot       byte[length]   payload
 * </pre>
 *
 * <p>Writers use version 1 whenever the length fits in an {@code int} (so such files are byte for byte
 * what earlier builds wrote) and version 2 above that, with one exception: a snapshot spilled to a
 * local file is framed as a state file while it is written ({@link FramedStateFile}), before its length
 * is known, so it reserves (and gets) a version-2 header whatever its length. Both are read, as a whole
 * array ({@link #decode}) and as a stream ({@link #openPayload}).
 *
 * <p>Version 0 is the layout before this header existed: the file is the bare snapshot, which
 * starts with the snapshot marker "SLKS". Such files are still read (without a checksum to check);
 * anything that starts with neither marker is corrupt.
 *
 * <p>Stateless and thread-safe; each stream of {@link #openPayload} is for one thread.
 */
final class StateFileFormat {
    static final int MAGIC = 0x534C5346; // "SLSF"
    static final int VERSION = 1;
    /** The version for payloads longer than {@link Integer#MAX_VALUE} bytes: a {@code long} length. */
    static final int VERSION_2 = 2;
    static final int HEADER_BYTES = 16;
    static final int HEADER_V2_BYTES = 20;
    /** The first four bytes of a keyed-state snapshot, which a version-0 state file starts with. */
    static final int VERSION_0_SNAPSHOT_MAGIC = 0x534C4B53; // "SLKS"

    private StateFileFormat() {}

    /** A decoded header: its version, its size in bytes, the payload length and its CRC32C. */
    record Header(int version, int size, long length, int crc) {}

    static byte[] encode(byte[] payload) {
        CRC32C crc = new CRC32C();
        crc.update(payload);
        byte[] header = header(payload.length, (int) crc.getValue());
        byte[] out = Arrays.copyOf(header, header.length + payload.length);
        System.arraycopy(payload, 0, out, header.length, payload.length);
        return out;
    }

    /**
     * The header of a payload of {@code length} bytes with checksum {@code crc}: version 1 when the
     * length fits in an {@code int}, else version 2.
     */
    static byte[] header(long length, int crc) {
        if (length < 0) {
            throw new IllegalArgumentException("A state-file payload cannot have a negative length, got " + length);
        }
        if (length <= Integer.MAX_VALUE) {
            return ByteBuffer.allocate(HEADER_BYTES).putInt(MAGIC).putInt(VERSION).putInt((int) length).putInt(crc)
                    .array();
        }
        return headerV2(length, crc);
    }

    /** The version-2 header of a payload of {@code length} bytes with checksum {@code crc}, whatever its length. */
    static byte[] headerV2(long length, int crc) {
        if (length < 0) {
            throw new IllegalArgumentException("A state-file payload cannot have a negative length, got " + length);
        }
        return ByteBuffer.allocate(HEADER_V2_BYTES).putInt(MAGIC).putInt(VERSION_2).putLong(length).putInt(crc).array();
    }

    /**
     * The header size of a file of {@code version}.
     *
     * @throws CorruptStateFileException for a version this build does not read
     */
    private static int headerSize(int version, String path) {
        if (version == VERSION) {
            return HEADER_BYTES;
        }
        if (version == VERSION_2) {
            return HEADER_V2_BYTES;
        }
        throw new CorruptStateFileException(path, "it has state-file format version " + version
                + ", but this Sluice reads versions 0, " + VERSION + " and " + VERSION_2 + " (restore it with the"
                + " Sluice version that wrote it)");
    }

    /**
     * Decodes a version 1 or 2 header from {@code bytes}, which hold at least the header (its size follows
     * from the version at offset 4).
     */
    static Header parseHeader(byte[] bytes, String path) {
        ByteBuffer in = ByteBuffer.wrap(bytes);
        int magic = in.getInt();
        if (magic != MAGIC) {
            throw new CorruptStateFileException(path, "it does not start with the state-file marker (found 0x"
                    + Integer.toHexString(magic) + ")");
        }
        int version = in.getInt();
        int size = headerSize(version, path);
        long length = version == VERSION ? in.getInt() : in.getLong();
        int crc = in.getInt();
        if (length < 0) {
            throw new CorruptStateFileException(path, "its header announces a negative length (" + length + ")");
        }
        return new Header(version, size, length, crc);
    }

    /**
     * The payload of a state file, checked.
     *
     * @throws CorruptStateFileException naming {@code path} and what is wrong
     */
    static byte[] decode(byte[] file, String path) {
        if (file.length < 4) {
            throw new CorruptStateFileException(path, "it has only " + file.length + " bytes");
        }
        int magic = ByteBuffer.wrap(file).getInt();
        if (magic == VERSION_0_SNAPSHOT_MAGIC) {
            return file; // version 0: the bare snapshot, written before state files had a checksum
        }
        if (magic != MAGIC) {
            throw new CorruptStateFileException(path, "it does not start with the state-file marker (found 0x"
                    + Integer.toHexString(magic) + ")");
        }
        if (file.length < 8) {
            throw new CorruptStateFileException(path, "it is truncated inside its header (" + file.length + " bytes)");
        }
        int size = headerSize(ByteBuffer.wrap(file, 4, 4).getInt(), path);
        if (file.length < size) {
            throw new CorruptStateFileException(path, "it is truncated inside its header (" + file.length + " bytes)");
        }
        Header header = parseHeader(file, path);
        if (header.length() != file.length - size) {
            throw new CorruptStateFileException(path, "its header announces " + header.length()
                    + " bytes of state but it holds " + (file.length - size) + " (truncated or appended to)");
        }
        CRC32C crc = new CRC32C();
        crc.update(file, size, file.length - size);
        checkCrc(path, header.crc(), (int) crc.getValue());
        return Arrays.copyOfRange(file, size, file.length);
    }

    private static void checkCrc(String path, int expected, int computed) {
        if (computed != expected) {
            throw new CorruptStateFileException(path, "checksum mismatch (CRC32C stored 0x" + Integer.toHexString(expected)
                    + ", computed 0x" + Integer.toHexString(computed) + ")");
        }
    }

    /**
     * The payload of the state file read from {@code file} (positioned at its start), as a stream. The
     * header is read and checked now; the length and the CRC32C are checked as the stream is read: the
     * {@code read} that delivers the last payload byte (or meets an early end, or finds bytes after the
     * payload) throws {@link CorruptStateFileException} if they do not match. A version-0 file is returned
     * unchecked, as {@link #decode} does. Closing the returned stream closes {@code file}; on an exception
     * here the caller closes it.
     *
     * @param expectedLength the payload length the caller knows, checked against the header; negative: unknown
     * @throws CorruptStateFileException naming {@code path}, for a bad header or a length other than expected
     * @throws IOException               if reading {@code file} fails
     */
    static InputStream openPayload(InputStream file, String path, long expectedLength) throws IOException {
        byte[] start = file.readNBytes(8);
        if (start.length < 4) {
            throw new CorruptStateFileException(path, "it has only " + start.length + " bytes");
        }
        int magic = ByteBuffer.wrap(start).getInt();
        if (magic == VERSION_0_SNAPSHOT_MAGIC) {
            return new SequenceInputStream(new ByteArrayInputStream(start), file);
        }
        if (magic != MAGIC) {
            throw new CorruptStateFileException(path, "it does not start with the state-file marker (found 0x"
                    + Integer.toHexString(magic) + ")");
        }
        if (start.length < 8) {
            throw new CorruptStateFileException(path, "it is truncated inside its header (" + start.length + " bytes)");
        }
        int size = headerSize(ByteBuffer.wrap(start, 4, 4).getInt(), path);
        byte[] rest = file.readNBytes(size - start.length);
        if (rest.length < size - start.length) {
            throw new CorruptStateFileException(path, "it is truncated inside its header (" + (start.length + rest.length)
                    + " bytes)");
        }
        byte[] headerBytes = Arrays.copyOf(start, size);
        System.arraycopy(rest, 0, headerBytes, start.length, rest.length);
        Header header = parseHeader(headerBytes, path);
        if (expectedLength >= 0 && header.length() != expectedLength) {
            throw new CorruptStateFileException(path, "its header announces " + header.length()
                    + " bytes of state, but the checkpoint expects " + expectedLength + " (a different or damaged file)");
        }
        return new CheckedPayloadStream(file, path, header.length(), header.crc());
    }

    /** Checks the length and the CRC32C of a payload as it is read. Threading: one thread. */
    private static final class CheckedPayloadStream extends InputStream {
        private final InputStream in;
        private final String path;
        private final long length;
        private final int expectedCrc;
        private final CRC32C crc = new CRC32C();
        private long remaining;
        private boolean verified;
        private CorruptStateFileException failure;

        CheckedPayloadStream(InputStream in, String path, long length, int expectedCrc) {
            this.in = in;
            this.path = path;
            this.length = length;
            this.expectedCrc = expectedCrc;
            this.remaining = length;
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
            if (remaining == 0) {
                verify(); // an empty payload, or a read after the end: checked once, failing again if corrupt
                return len == 0 ? 0 : -1;
            }
            if (len == 0) {
                return 0;
            }
            int n = in.read(b, off, (int) Math.min(len, remaining));
            if (n < 0) {
                throw new CorruptStateFileException(path, "it is truncated: its header announces " + length
                        + " bytes of state but it ends after " + (length - remaining));
            }
            crc.update(b, off, n);
            remaining -= n;
            if (remaining == 0) {
                verify();
            }
            return n;
        }

        /** At the end of the payload: nothing may follow, and the checksum must match. */
        private void verify() throws IOException {
            if (verified) {
                return;
            }
            if (failure != null) {
                throw failure;
            }
            try {
                if (in.read() >= 0) {
                    throw new CorruptStateFileException(path, "it holds more than the " + length
                            + " bytes of state its header announces (appended to)");
                }
                checkCrc(path, expectedCrc, (int) crc.getValue());
            } catch (CorruptStateFileException e) {
                failure = e;
                throw e;
            }
            verified = true;
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
}
