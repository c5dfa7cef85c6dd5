package io.sluice.core.serialization;

import java.util.List;
import java.util.Objects;

/**
 * How a snapshot names a serializer: a stable id (for example {@code sluice.long}), the version of
 * the binary format it writes, an optional parameter (such as the class of an enum or record
 * serializer) and the serializers it is composed of. The {@link SerializerRegistry} turns an
 * identity read from a snapshot back into a serializer. Immutable.
 *
 * @param id        stable name; never derived from Java class names of anonymous or lambda classes
 * @param version   the binary format version the serializer writes, at least 1
 * @param parameter configuration that is not a serializer (a class name), or {@code null}
 * @param nested    the serializers this one is composed of, in a fixed order
 */
public record SerializerIdentity(String id, int version, String parameter, List<TypeSerializer<?>> nested) {
    public SerializerIdentity {
        Objects.requireNonNull(id, "id");
        if (version < 1) {
            throw new IllegalArgumentException("Serializer " + id + ": version must be >= 1, was " + version);
        }
        nested = List.copyOf(nested);
    }

    public static SerializerIdentity of(String id, int version) {
        return new SerializerIdentity(id, version, null, List.of());
    }
}
