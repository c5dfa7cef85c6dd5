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
 * <p>Layout (big-endian), format versions 1 and 2:
 * <pre>
 *   magic            4 bytes  "SLCM"
 *   version          int      1 or 2
 *   totalLength      int      length of the whole blob including the checksum
 *   jobId            UTF
 *   checkpointId     long
 *   triggerMillis    long
 *   completionMillis long
 *   handleCount      int
 *   per handle:      vertexId int, subtaskIndex int,
 *                    hasStateFile boolean [+ stateFile UTF], stateSize long,
 *                    sourcePosition length-prefixed bytes (-1 = none),
 *                    hasKeyGroups boolean [+ start int, end int],
 *                    version 2 on: inlineState length-prefixed bytes (-1 = none)
 *                    version 3 on: hasOperatorStateFile boolean [+ operatorStateFile UTF],
 *                                  operatorState length-prefixed bytes (-1 = none)
 *                    version 4 on: hasIncremental boolean [+ IncrementalStateHandle#writeTo]
 *   version 4 on:    referenceCount int, per shared file: path UTF, idCount varint, ids long...
 *   crc32            int      CRC32 of every byte before it
 * </pre>
 * Version 3 adds the operators' own state (a two-phase-commit sink's committables,
 * {@link TaskStateHandle#operatorState()}), written only when some handle has it.
 * Version 4 adds incremental checkpoints (RocksDB's files, {@link TaskStateHandle#incremental()}) and
 * the shared-state registry as it was when the checkpoint completed
 * ({@link CompletedCheckpoint#sharedFileReferences()}, what a new leader rebuilds the
 * {@link SharedStateRegistry} from); it is written only for checkpoints that have them.
 * Version 2 adds keyed state carried inline (see {@link TaskStateHandle#inlineState()}). A
 * checkpoint without inline state is written as version 1, byte for byte as before, so an older
 * build can still restore it (for example after a rollback with
 * {@code checkpoints.inline-state-threshold: 0}); both versions are read.
 *
 * <p>The metadata path itself is not stored: a deserialized checkpoint carries the path it was read
 * from, so moved storage stays readable. <b>State files are relative to their checkpoint's
 * directory:</b> a state file stored as {@code <jobId>/chk-<id>/<file>} (its own checkpoint's
 * directory, where every state file is written) is read back as {@code <directory of the
 * _metadata read>/<file>}, so a checkpoint directory copied anywhere (another directory, another
 * storage, under another name) restores from its copy and never from the original. Paths elsewhere
 * are kept as written.
 *
 * <p>Threading: stateless and thread-safe. Pure CPU work, but callers normally run it on the I/O
 * executor together with the read or write.
 */
public final class CheckpointMetadataSerializer {
    /** "SLCM": Sluice checkpoint metadata. */
    static final int MAGIC = 0x534C434D;
    /** Without inline state. */
    static final int VERSION_1 = 1;
    /** With inline state: every handle ends with its inline bytes. */
    static final int VERSION_2 = 2;
    /** With operator state: every handle ends with its operator state file and inline operator state. */
    static final int VERSION_3 = 3;
    /** With incremental state and the shared-state registry. */
    static final int VERSION_4 = 4;
    /** The newest version this build reads and writes. */
    static final int VERSION = VERSION_4;
    private static final int HEADER_BYTES = 12; // magic, version, totalLength
    private static final int CRC_BYTES = 4;

    /** Encodes {@code cp} in the lowest format version that can hold it (see the class comment). */
    public byte[] serialize(CompletedCheckpoint cp) {
        int version = VERSION_1;
        long inlineBytes = 0;
        for (TaskStateHandle h : cp.taskStates()) {
            if (h.isInline()) {
                version = Math.max(version, VERSION_2);
                inlineBytes += h.inlineState().length;
            }
            if (h.hasOperatorState()) {
                version = Math.max(version, VERSION_3);
                inlineBytes += h.operatorState() == null ? 0 : h.operatorState().length;
            }
            if (h.isIncremental()) {
                version = VERSION_4;
                inlineBytes += 256L * (h.incremental().sharedFiles().size() + h.incremental().privateFiles().size());
            }
        }
        if (!cp.sharedFileReferences().isEmpty()) {
            version = VERSION_4;
            inlineBytes += 128L * cp.sharedFileReferences().size();
        }
        DataOutputBuffer out = new DataOutputBuffer((int) Math.min(Integer.MAX_VALUE - 64,
                256 + 64L * cp.taskStates().size() + inlineBytes));
        out.writeInt(MAGIC);
        out.writeInt(version);
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
            if (version >= VERSION_2) {
                out.writeBytes(h.inlineState());
            }
            if (version >= VERSION_3) {
                out.writeBoolean(h.operatorStateFile() != null);
                if (h.operatorStateFile() != null) {
                    out.writeUTF(h.operatorStateFile());
                }
                out.writeBytes(h.operatorState());
            }
            if (version >= VERSION_4) {
                out.writeBoolean(h.incremental() != null);
                if (h.incremental() != null) {
                    h.incremental().writeTo(out);
                }
            }
        }
        if (version >= VERSION_4) {
            out.writeInt(cp.sharedFileReferences().size());
            for (var e : new java.util.TreeMap<>(cp.sharedFileReferences()).entrySet()) {
                out.writeUTF(e.getKey());
                out.writeVarInt(e.getValue().size());
                for (long id : e.getValue()) {
                    out.writeLong(id);
                }
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
        if (version < VERSION_1 || version > VERSION_4) {
            throw corrupt(path, "unsupported format version " + version + " (this build reads versions " + VERSION_1
                    + " to " + VERSION + "); restore with the Sluice version that wrote it or from another checkpoint");
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
            String writtenIn = jobId.value() + "/chk-" + checkpointId + "/";
            int slash = path.lastIndexOf('/');
            String readFrom = slash < 0 ? "" : path.substring(0, slash + 1);
            // Shared files are in the job's directory, the parent of the checkpoint's.
            String sharedWrittenIn = jobId.value() + "/shared/";
            int parent = slash <= 0 ? -1 : path.lastIndexOf('/', slash - 1);
            String sharedReadFrom = slash < 0 ? null : (parent < 0 ? "" : path.substring(0, parent + 1)) + "shared/";
            for (int i = 0; i < count; i++) {
                int vertexId = in.readInt();
                int subtask = in.readInt();
                String stateFile = in.readBoolean() ? relocated(in.readUTF(), writtenIn, readFrom) : null;
                long stateSize = in.readLong();
                byte[] sourcePosition = in.readBytes();
                KeyGroupRange range = in.readBoolean() ? KeyGroupRange.of(in.readInt(), in.readInt()) : null;
                byte[] inlineState = version >= VERSION_2 ? in.readBytes() : null;
                String operatorStateFile = version >= VERSION_3 && in.readBoolean()
                        ? relocated(in.readUTF(), writtenIn, readFrom) : null;
                byte[] operatorState = version >= VERSION_3 ? in.readBytes() : null;
                io.sluice.state.IncrementalStateHandle incremental = version >= VERSION_4 && in.readBoolean()
                        ? io.sluice.state.IncrementalStateHandle.readFrom(in).withPaths(f -> sharedReadFrom == null ? f
                                : relocated(relocated(f, writtenIn, readFrom), sharedWrittenIn, sharedReadFrom))
                        : null;
                handles.add(new TaskStateHandle(vertexId, subtask, stateFile, stateSize, sourcePosition, range,
                        inlineState, operatorState, operatorStateFile, incremental));
            }
            java.util.Map<String, List<Long>> references = new java.util.HashMap<>();
            if (version >= VERSION_4) {
                int refs = in.readInt();
                if (refs < 0) {
                    throw corrupt(path, "malformed: negative shared file count " + refs);
                }
                for (int i = 0; i < refs; i++) {
                    String file = relocated(in.readUTF(), sharedWrittenIn,
                            sharedReadFrom == null ? sharedWrittenIn : sharedReadFrom);
                    int n = in.readVarInt();
                    List<Long> ids = new ArrayList<>(Math.min(n, 1024));
                    for (int j = 0; j < n; j++) {
                        ids.add(in.readLong());
                    }
                    references.put(file, ids);
                }
            }
            if (in.hasRemaining()) {
                throw corrupt(path, "malformed: " + in.remaining() + " unexpected bytes after the last task state");
            }
            return new CompletedCheckpoint(jobId, checkpointId, trigger, completion, handles, path, references);
        } catch (SerializationException | IllegalArgumentException | NegativeArraySizeException e) {
            throw new CorruptCheckpointException("Checkpoint metadata " + path + " is corrupt: malformed content ("
                    + e.getMessage() + ") although its checksum matches; it was written by a faulty writer."
                    + " Restore from another checkpoint.", e);
        }
    }

    /** {@code stateFile} under {@code writtenIn} (its checkpoint's directory) moved to {@code readFrom}, the metadata's. */
    static String relocated(String stateFile, String writtenIn, String readFrom) {
        return stateFile.startsWith(writtenIn) ? readFrom + stateFile.substring(writtenIn.length()) : stateFile;
    }

    private static CorruptCheckpointException corrupt(String path, String problem) {
        return new CorruptCheckpointException("Checkpoint metadata " + path + " is corrupt: " + problem
                + ". Restore from another checkpoint.");
    }
}
