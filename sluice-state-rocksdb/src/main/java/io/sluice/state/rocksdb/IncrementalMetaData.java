package io.sluice.state.rocksdb;

import io.sluice.core.serialization.DataInputBuffer;
import io.sluice.core.serialization.DataOutputBuffer;
import io.sluice.core.serialization.SerializationException;
import io.sluice.core.serialization.SerializerRegistry;
import io.sluice.core.serialization.TypeSerializer;
import io.sluice.state.StateMetaInfo;
import java.util.ArrayList;
import java.util.List;

/**
 * What an incremental checkpoint's files need beside them to be read: the key serializer and the
 * states (name = column family, kind, serializers), in the layout of the canonical format's header.
 *
 * <pre>
 * int "SLRI", int version (1), serializer keySerializer, varint stateCount, StateMetaInfo...
 * </pre>
 *
 * @param keySerializer the task's key serializer (the keys' bytes in the files are its)
 * @param states        the states, one column family each
 */
record IncrementalMetaData(TypeSerializer<Object> keySerializer, List<StateMetaInfo> states) {
    private static final int MAGIC = 0x534C5249; // "SLRI"
    private static final int VERSION = 1;

    static byte[] encode(TypeSerializer<Object> keySerializer, List<StateMetaInfo> states) {
        DataOutputBuffer out = new DataOutputBuffer(256);
        out.writeInt(MAGIC);
        out.writeInt(VERSION);
        SerializerRegistry.write(keySerializer, out);
        out.writeVarInt(states.size());
        for (StateMetaInfo s : states) {
            s.writeTo(out);
        }
        return out.toByteArray();
    }

    static IncrementalMetaData decode(byte[] bytes) {
        DataInputBuffer in = new DataInputBuffer(bytes);
        if (in.readInt() != MAGIC) {
            throw new SerializationException("The state descriptions of an incremental checkpoint do not start with"
                    + " their marker: they are corrupt");
        }
        int version = in.readInt();
        if (version != VERSION) {
            throw new SerializationException("The state descriptions of an incremental checkpoint have version " + version
                    + ", but this Sluice reads version " + VERSION + ": restore with the Sluice version that wrote them");
        }
        ClassLoader cl = Thread.currentThread().getContextClassLoader();
        TypeSerializer<Object> keys = SerializerRegistry.read(in, cl != null ? cl : IncrementalMetaData.class.getClassLoader());
        int n = in.readVarInt();
        List<StateMetaInfo> states = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            states.add(StateMetaInfo.readFrom(in, 2, cl != null ? cl : IncrementalMetaData.class.getClassLoader()));
        }
        return new IncrementalMetaData(keys, List.copyOf(states));
    }
}
