package io.sluice.checkpoint;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * A local file laid out as a state file while its payload is still being written: it starts with room
 * for a version-2 header ({@link #reserveHeader}), the payload follows, and {@link #finish} writes the
 * header (length and CRC32C) into that room. The finished file is a complete state file, byte for byte
 * what storage keeps, so publishing it needs no second pass: a store that keeps blobs as local files
 * links it into place ({@link io.sluice.storage.BlobStore#putFile}), any other store streams it as it
 * is. A spilled snapshot ({@code SpillingSnapshotOutput}) is written this way.
 *
 * <p>Stateless; blocking file I/O, on I/O threads only.
 */
public final class FramedStateFile {
    /** The bytes before the payload: a version-2 header, the only header whose size does not depend on the length. */
    public static final int HEADER_BYTES = StateFileFormat.HEADER_V2_BYTES;

    private FramedStateFile() {
    }

    /** Writes the room for the header: call first, before any payload byte. */
    public static void reserveHeader(OutputStream out) throws IOException {
        out.write(new byte[HEADER_BYTES]);
    }

    /**
     * Writes the header of the {@code payloadLength} bytes (CRC32C {@code crc32c}) that follow the reserved room
     * in {@code file}, after checking that the file holds exactly that many; the file's writer must be closed.
     *
     * @throws IOException if the file has another size or cannot be written
     */
    public static void finish(Path file, long payloadLength, int crc32c) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
            long size = ch.size();
            if (size != HEADER_BYTES + payloadLength) {
                throw new IOException("it holds " + (size - HEADER_BYTES) + " bytes after its header, its writer wrote "
                        + payloadLength);
            }
            ByteBuffer header = ByteBuffer.wrap(StateFileFormat.headerV2(payloadLength, crc32c));
            while (header.hasRemaining()) {
                ch.write(header, header.position());
            }
        }
    }

    /**
     * The payload of the finished framed {@code file}, as a stream that checks its header now and its length
     * and CRC32C as it is read (see {@link StateFileStreams#open}); closing it closes {@code file}'s stream.
     *
     * @param in             a stream of the file from its start, closed by the caller if this throws
     * @param what           names the file in errors
     * @param expectedLength the payload length the caller knows; negative if unknown
     * @throws CorruptStateFileException if the header is wrong or announces another length
     */
    public static InputStream openPayload(InputStream in, String what, long expectedLength) throws IOException {
        return StateFileFormat.openPayload(in, what, expectedLength);
    }

    /** The size of the framed file of a payload of {@code payloadLength} bytes. */
    public static long fileSize(long payloadLength) {
        return HEADER_BYTES + payloadLength;
    }
}
