package io.sluice.checkpoint;

import io.sluice.core.serialization.DataInputBuffer;
import io.sluice.core.serialization.DataOutputBuffer;
import io.sluice.core.serialization.SerializationException;
import io.sluice.graph.JobId;
import io.sluice.state.KeyGroupRange;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32;

/**
 * The binary format of a checkpoint's {@code _metadata} blob.
 *
 * <p>Layout (big-endian), format version 1:
 * <pre>
 *   magic            4 bytes  "SLCM"
 *   version          int      1
 *   totalLength      int      length of the whole blob including the checksum
 *   jobId            UTF
 *   checkpointId     long
 *   triggerMillis    long
 *   completionMillis long
 *   handleCount      int
 *   per handle:      vertexId int, subtaskIndex int,
 *                    hasStateFile boolean [+ stateFile UTF], stateSize long,
 *                    sourcePosition length-prefixed bytes (-1 = none),
 *                    hasKeyGroups boolean [+ start int, end int]
 *   crc32            int      CRC32 of every byte before it
 * </pre>
 * The metadata path itself is not stored: a deserialized checkpoint carries the path it was read
 * from, so moved storage stays readable.
 *
 * <p>Threading: stateless and thread-safe. Pure CPU work, but callers normally run it on the I/O
 * executor together with the read or write.
 */
public final class CheckpointMetadataSerializer {
    /** "SLCM": Sluice checkpoint metadata. */
    static final int MAGIC = 0x534C434D;
    static final int VERSION = 1;
    private static final int HEADER_BYTES = 12; // magic, version, totalLength
    private static final int CRC_BYTES = 4;

    public byte[] serialize(CompletedCheckpoint cp) {
        DataOutputBuffer out = new DataOutputBuffer(256 + 64 * cp.taskStates().size());
        out.writeInt(MAGIC);
        out.writeInt(VERSION);
        out.writeInt(0); // totalLength, patched below
        out.writeUTF(cp.jobId().value());
        out.writeLong(cp.checkpointId());
        out.writeLong(cp.triggerTimestampMillis());
        out.writeLong(cp.completionTimestampMillis());
        out.writeInt(cp.taskStates().size());
        for (TaskStateHandle h : cp.taskStates()) {
            out.writeInt(h.vertexId());
            out.writeInt(h.subtaskIndex());
            out.writeBoolean(h.stateFile() != null);
            if (h.stateFile() != null) {
                out.writeUTF(h.stateFile());
            }
            out.writeLong(h.stateSize());
            out.writeBytes(h.sourcePosition());
            out.writeBoolean(h.keyGroupRange() != null);
            if (h.keyGroupRange() != null) {
                out.writeInt(h.keyGroupRange().start());
                out.writeInt(h.keyGroupRange().end());
            }
        }
        int totalLength = out.position() + CRC_BYTES;
        byte[] data = out.array();
        data[8] = (byte) (totalLength >>> 24);
        data[9] = (byte) (totalLength >>> 16);
        data[10] = (byte) (totalLength >>> 8);
        data[11] = (byte) totalLength;
        CRC32 crc = new CRC32();
        crc.update(data, 0, out.position());
        out.writeInt((int) crc.getValue());
        return out.toByteArray();
    }

    /**
     * Decodes {@code data} read from {@code path}; the result's {@code metadataPath} is {@code path}.
     *
     * @throws CorruptCheckpointException naming {@code path} and the problem
     */
    public CompletedCheckpoint deserialize(byte[] data, String path) {
        if (data.length < 8) {
            throw corrupt(path, "truncated: " + data.length + " bytes, too short for the header");
        }
        DataInputBuffer in = new DataInputBuffer(data);
        int magic = in.readInt();
        if (magic != MAGIC) {
            throw corrupt(path, String.format("bad magic bytes 0x%08x (expected 0x%08x): this is not checkpoint metadata",
                    magic, MAGIC));
        }
        int version = in.readInt();
        if (version != VERSION) {
            throw corrupt(path, "unsupported format version " + version + " (this build reads version " + VERSION
                    + "); restore with the Sluice version that wrote it or from another checkpoint");
        }
        if (data.length < HEADER_BYTES + CRC_BYTES) {
            throw corrupt(path, "truncated: " + data.length + " bytes, too short for header and checksum");
        }
        int totalLength = in.readInt();
        if (data.length < totalLength) {
            throw corrupt(path, "truncated: " + data.length + " of " + totalLength + " bytes present");
        }
        if (data.length > totalLength) {
            throw corrupt(path, "length mismatch: " + data.length + " bytes present, header says " + totalLength);
        }
        CRC32 crc = new CRC32();
        crc.update(data, 0, data.length - CRC_BYTES);
        int expected = new DataInputBuffer(data, data.length - CRC_BYTES, data.length).readInt();
        if ((int) crc.getValue() != expected) {
            throw corrupt(path, String.format("checksum mismatch (stored 0x%08x, computed 0x%08x)",
                    expected, (int) crc.getValue()));
        }
        in.reset(data, HEADER_BYTES, data.length - CRC_BYTES);
        try {
            JobId jobId = JobId.of(in.readUTF());
            long checkpointId = in.readLong();
            long trigger = in.readLong();
            long completion = in.readLong();
            int count = in.readInt();
            if (count < 0) {
                throw corrupt(path, "malformed: negative task state count " + count);
            }
            List<TaskStateHandle> handles = new ArrayList<>(Math.min(count, 4096));
            for (int i = 0; i < count; i++) {
                int vertexId = in.readInt();
                int subtask = in.readInt();
                String stateFile = in.readBoolean() ? in.readUTF() : null;
                long stateSize = in.readLong();
                byte[] sourcePosition = in.readBytes();
                KeyGroupRange range = in.readBoolean() ? KeyGroupRange.of(in.readInt(), in.readInt()) : null;
                handles.add(new TaskStateHandle(vertexId, subtask, stateFile, stateSize, sourcePosition, range));
            }
            if (in.hasRemaining()) {
                throw corrupt(path, "malformed: " + in.remaining() + " unexpected bytes after the last task state");
            }
            return new CompletedCheckpoint(jobId, checkpointId, trigger, completion, handles, path);
        } catch (SerializationException | IllegalArgumentException | NegativeArraySizeException e) {
            throw new CorruptCheckpointException("Checkpoint metadata " + path + " is corrupt: malformed content ("
                    + e.getMessage() + ") although its checksum matches; it was written by a faulty writer."
                    + " Restore from another checkpoint.", e);
        }
    }

    private static CorruptCheckpointException corrupt(String path, String problem) {
        return new CorruptCheckpointException("Checkpoint metadata " + path + " is corrupt: " + problem
                + ". Restore from another checkpoint.");
    }
}
