package io.sluice.core.serialization;

import io.sluice.api.tuple.Tuple2;

/**
 * A user-written serializer of {@code Tuple2<Long, Long>} with no identity and no declared
 * {@code serialVersionUID}, so that snapshots record it by Java serialization: its default version
 * id hashes its method signatures, which name {@code Tuple2}. {@code pair-serializer-858f2ac.bin}
 * holds it as the code of commit {@code 858f2ac} recorded it (README beside it).
 */
public class LegacyPairSerializer implements TypeSerializer<Tuple2<Long, Long>> {
    @Override
    public void serialize(Tuple2<Long, Long> value, DataOutputBuffer out) {
        out.writeLong(value.f0());
        out.writeLong(value.f1());
    }

    @Override
    public Tuple2<Long, Long> deserialize(DataInputBuffer in) {
        return new Tuple2<>(in.readLong(), in.readLong());
    }
}
