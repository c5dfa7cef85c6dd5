package io.sluice.api;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.api.errors.InvalidJobException;
import io.sluice.api.sink.DiscardingSink;
import io.sluice.api.tuple.Tuple2;
import io.sluice.core.serialization.DataInputBuffer;
import io.sluice.core.serialization.DataOutputBuffer;
import io.sluice.core.serialization.TypeSerializer;
import org.junit.jupiter.api.Test;

/** A key type whose values hash by identity is refused when the job graph is built, naming the operator and the type. */
class UnstableKeyTypeTest {
    /** Hashes by identity. */
    static final class Handle {
        final long id;

        Handle(long id) {
            this.id = id;
        }
    }

    record HandleKey(Handle handle) {}

    /** A serializer for {@link Handle}: serializable, but the key still has no stable hash. */
    static final class HandleSerializer implements TypeSerializer<Handle> {
        private static final long serialVersionUID = 1L;

        @Override
        public void serialize(Handle v, DataOutputBuffer out) {
            out.writeLong(v.id);
        }

        @Override
        public Handle deserialize(DataInputBuffer in) {
            return new Handle(in.readLong());
        }

        @Override
        public Handle copy(Handle v) {
            return v;
        }

        @Override
        public String typeName() {
            return "handle";
        }
    }

    @Test
    void aKeyWithADeclaredSerializerButAnIdentityHashIsRefused() {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.create();
        env.fromSequence(0, 10).keyBy((Long v) -> new Handle(v), new HandleSerializer())
                .reduce(Long::sum).name("sum per handle").addSink(new DiscardingSink<>());
        assertThatThrownBy(() -> env.buildJobGraph("identity keys")).isInstanceOf(InvalidJobException.class)
                .hasMessageContaining("'sum per handle'").hasMessageContaining(Handle.class.getName())
                .hasMessageContaining("hash by identity").hasMessageContaining("Key by a String");
    }

    @Test
    void aRecordKeyWithAComponentThatHashesByIdentityIsRefused() {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.create();
        env.fromSequence(0, 10).keyBy((Long v) -> new HandleKey(new Handle(v)))
                .reduce(Long::sum).name("sum per record").addSink(new DiscardingSink<>());
        assertThatThrownBy(() -> env.buildJobGraph("identity record keys")).isInstanceOf(InvalidJobException.class)
                .hasMessageContaining("'sum per record'").hasMessageContaining(HandleKey.class.getName())
                .hasMessageContaining(Handle.class.getTypeName());
    }

    record Packet(String source, byte[] payload) {}

    /**
     * An array equals only itself, so keyed state could never find a byte[] key again: each record
     * would be a new key (counts stuck at 1, state growing for ever). Refused like an identity hash,
     * as a key and inside a record key; as a part of a key whose type is not visible, at the first key.
     */
    @Test
    void byteArrayKeysAreRefusedBecauseArraysCompareByIdentity() {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.create();
        env.fromSequence(0, 10).keyBy((Long v) -> new byte[] {(byte) (v % 2)})
                .reduce(Long::sum).name("sum per bytes").addSink(new DiscardingSink<>());
        assertThatThrownBy(() -> env.buildJobGraph("byte[] keys")).isInstanceOf(InvalidJobException.class)
                .hasMessageContaining("'sum per bytes'").hasMessageContaining("byte[]")
                .hasMessageContaining("equals()").hasMessageContaining("Base64");

        StreamExecutionEnvironment records = StreamExecutionEnvironment.create();
        records.fromSequence(0, 10).keyBy((Long v) -> new Packet("p", new byte[] {(byte) (v % 2)}))
                .reduce(Long::sum).name("sum per packet").addSink(new DiscardingSink<>());
        assertThatThrownBy(() -> records.buildJobGraph("record keys with bytes")).isInstanceOf(InvalidJobException.class)
                .hasMessageContaining("'sum per packet'").hasMessageContaining(Packet.class.getName())
                .hasMessageContaining("byte[]");

        assertThatThrownBy(() -> io.sluice.core.serialization.StableHash.of(Tuple2.of("k", new byte[] {1})))
                .isInstanceOf(io.sluice.core.serialization.UnstableKeyException.class).hasMessageContaining("byte[]");
    }

    @Test
    void tuplesOfEnumsAndStringsAreAccepted() {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.create();
        env.fromSequence(0, 10).keyBy((Long v) -> Tuple2.of("k" + v % 2, Thread.State.values()[(int) (v % 3)]))
                .reduce(Long::sum).addSink(new DiscardingSink<>());
        env.buildJobGraph("tuple keys");
    }
}
