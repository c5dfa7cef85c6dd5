package io.sluice.core.serialization;

import java.io.IOException;
import java.io.InputStream;
import java.io.ObjectInputStream;
import java.io.ObjectStreamClass;
import java.util.Map;

/**
 * An {@link ObjectInputStream} that reads Java-serialized data holding the built-in serializers
 * of the build before they had stable ids: they were anonymous classes then
 * ({@code Serializers$1} to {@code $6}, in the order LONG, INT, DOUBLE, BOOLEAN, STRING, BYTES),
 * which no longer exist. Those are read with today's class descriptions (they have no fields) and
 * resolve to today's singletons. Other classes are resolved through {@code classLoader}. Used for
 * format-1 keyed-state snapshots and for job graphs persisted by that build.
 */
public final class LegacySerializerObjectInputStream extends ObjectInputStream {
    private static final String PREFIX = "io.sluice.core.serialization.Serializers$";
    private static final Map<String, Class<?>> LEGACY = Map.of(
            PREFIX + "1", Serializers.LongSerializer.class,
            PREFIX + "2", Serializers.IntSerializer.class,
            PREFIX + "3", Serializers.DoubleSerializer.class,
            PREFIX + "4", Serializers.BooleanSerializer.class,
            PREFIX + "5", Serializers.StringSerializer.class,
            PREFIX + "6", Serializers.BytesSerializer.class);

    private final ClassLoader classLoader;

    public LegacySerializerObjectInputStream(InputStream in, ClassLoader classLoader) throws IOException {
        super(in);
        this.classLoader = classLoader;
    }

    @Override
    protected ObjectStreamClass readClassDescriptor() throws IOException, ClassNotFoundException {
        ObjectStreamClass written = super.readClassDescriptor();
        Class<?> current = LEGACY.get(written.getName());
        return current != null ? ObjectStreamClass.lookup(current) : written;
    }

    @Override
    protected Class<?> resolveClass(ObjectStreamClass desc) throws IOException, ClassNotFoundException {
        Class<?> current = LEGACY.get(desc.getName());
        if (current != null) {
            return current;
        }
        if (classLoader != null) {
            try {
                return Class.forName(desc.getName(), false, classLoader);
            } catch (ClassNotFoundException e) {
                // fall through to the default resolution
            }
        }
        return super.resolveClass(desc);
    }
}
