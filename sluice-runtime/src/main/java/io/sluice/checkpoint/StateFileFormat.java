package io.sluice.checkpoint;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.zip.CRC32C;

/**
 * The layout of a {@code .state} file: a small header with a checksum around the serialized
 * keyed-state snapshot, so that a flipped bit or foreign bytes are detected before a single value
 * is restored. Big-endian.
 *
 * <pre>
 * int  MAGIC     "SLSF"
 * int  VERSION   1
 * int  length    of the payload
 * int  crc32c    CRC32C of the payload
 * byte[length]   payload: the keyed-state snapshot (KeyedSnapshotFormat)
 * </pre>
 *
 * <p>Version 0 is the layout before this header existed: the file is the bare snapshot, which
 * starts with the snapshot marker "SLKS". Such files are still read (without a checksum to check);
 * anything that starts with neither marker is corrupt.
 *
 * <p>Stateless and thread-safe.
 */
final class StateFileFormat {
    static final int MAGIC = 0x534C5346; // "SLSF"
    static final int VERSION = 1;
    static final int HEADER_BYTES = 16;
    /** The first four bytes of a keyed-state snapshot, which a version-0 state file starts with. */
    static final int VERSION_0_SNAPSHOT_MAGIC = 0x534C4B53; // "SLKS"

    private StateFileFormat() {}

    static byte[] encode(byte[] payload) {
        CRC32C crc = new CRC32C();
        crc.update(payload);
        ByteBuffer out = ByteBuffer.allocate(HEADER_BYTES + payload.length);
        out.putInt(MAGIC).putInt(VERSION).putInt(payload.length).putInt((int) crc.getValue()).put(payload);
        return out.array();
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
        ByteBuffer in = ByteBuffer.wrap(file);
        int magic = in.getInt();
        if (magic == VERSION_0_SNAPSHOT_MAGIC) {
            return file; // version 0: the bare snapshot, written before state files had a checksum
        }
        if (magic != MAGIC) {
            throw new CorruptStateFileException(path, "it does not start with the state-file marker (found 0x"
                    + Integer.toHexString(magic) + ")");
        }
        if (file.length < HEADER_BYTES) {
            throw new CorruptStateFileException(path, "it is truncated inside its header (" + file.length + " bytes)");
        }
        int version = in.getInt();
        if (version != VERSION) {
            throw new CorruptStateFileException(path, "it has state-file format version " + version
                    + ", but this Sluice reads versions 0 and " + VERSION + " (restore it with the Sluice version"
                    + " that wrote it)");
        }
        int length = in.getInt();
        int expectedCrc = in.getInt();
        if (length != file.length - HEADER_BYTES) {
            throw new CorruptStateFileException(path, "its header announces " + length + " bytes of state but it holds "
                    + (file.length - HEADER_BYTES) + " (truncated or appended to)");
        }
        CRC32C crc = new CRC32C();
        crc.update(file, HEADER_BYTES, length);
        if ((int) crc.getValue() != expectedCrc) {
            throw new CorruptStateFileException(path, "checksum mismatch (CRC32C stored 0x" + Integer.toHexString(expectedCrc)
                    + ", computed 0x" + Integer.toHexString((int) crc.getValue()) + ")");
        }
        return Arrays.copyOfRange(file, HEADER_BYTES, file.length);
    }
}
