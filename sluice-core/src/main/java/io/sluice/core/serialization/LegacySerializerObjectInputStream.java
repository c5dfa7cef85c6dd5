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
 * resolve to today's singletons. Classes that moved to another package since are resolved by
 * today's name, and a class whose default version id changed only because classes it names moved
 * is read with today's description ({@link MovedClasses}). Other classes are resolved through
 * {@code classLoader}. Used
 * for keyed-state snapshots, for job graphs' user code and for job results persisted by earlier builds.
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
        if (current != null) {
            return ObjectStreamClass.lookup(current);
        }
        return movedSinceWritten(written) ? ObjectStreamClass.lookup(resolveClass(written)) : written;
    }

    /**
     * Whether the class {@code written} describes has today another default version id only because
     * classes it names moved ({@link MovedClasses#sameVersionBeforeTheMoves}): then today's description
     * reads the written fields, which are the same.
     */
    private boolean movedSinceWritten(ObjectStreamClass written) {
        Class<?> local;
        try {
            local = resolveClass(written);
        } catch (ClassNotFoundException | IOException e) {
            return false; // reported, as usual, when the stream resolves the class itself
        }
        ObjectStreamClass today = ObjectStreamClass.lookup(local);
        return today != null && today.getSerialVersionUID() != written.getSerialVersionUID()
                && !local.isRecord() && !local.isEnum() && !local.isArray()
                && (MovedClasses.sameVersionBeforeTheMoves(local, written.getSerialVersionUID())
                        || MovedClasses.writtenByAnEarlierVersion(local, written.getSerialVersionUID()));
    }

    @Override
    protected Class<?> resolveClass(ObjectStreamClass desc) throws IOException, ClassNotFoundException {
        Class<?> current = LEGACY.get(desc.getName());
        if (current != null) {
            return current;
        }
        String name = MovedClasses.currentName(desc.getName());
        if (!name.equals(desc.getName())) {
            return Class.forName(name, false, classLoader != null ? classLoader : getClass().getClassLoader());
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
