package io.sluice.core.serialization;

import io.sluice.api.tuple.Tuple2;
import io.sluice.api.tuple.Tuple3;
import java.lang.reflect.Modifier;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/**
 * A hash of a key defined by its value, the same in every JVM and every run: key groups come from it.
 *
 * <ul>
 *   <li>{@link String}, boxed primitives and {@link UUID}: their {@code hashCode()} (defined by value
 *       in the JDK's specification);</li>
 *   <li>enums: the hash of their {@link Enum#name() name} (an enum's {@code hashCode()} is its identity
 *       hash, different in every JVM);</li>
 *   <li>records, {@link Tuple2} and {@link Tuple3} included: {@code h = 31 * h + hash(component)} over
 *       the components in order, from 0, which is how the JDK computes a record's {@code hashCode()}
 *       (so records of strings, longs and the like keep the key groups they had), but over the
 *       components' stable hashes, and whatever the record's own {@code hashCode()} says;</li>
 *   <li>{@link List}: {@code h = 31 * h + hash(element)} from 1; {@link Set}: the sum of the
 *       elements' hashes; {@link Map}: the sum of {@code hash(key) ^ hash(value)} (the JDK's
 *       definitions, over stable hashes); {@code null} inside these: 0;</li>
 *   <li>any other class whose {@code hashCode()} is its own (overrides {@code Object}'s), such as a
 *       key with a declared serializer: its {@code hashCode()}, which must then be computed from
 *       the value alone.</li>
 * </ul>
 * A key of any other class hashes by identity and is refused: {@link #of} throws
 * {@link UnstableKeyException}, and {@link #check} refuses the class when the job graph is built.
 * Arrays, {@code byte[]} included, are refused anywhere in a key: an array's {@code equals()} is its
 * identity, so keyed state (and a record's or tuple's {@code equals()} over it) would never find an
 * equal key again, whatever its hash.
 *
 * <p>Threading: stateless, any thread. Per-class facts are kept in {@link ClassValue}s, which hold
 * no reference to the class's loader from a static place (the value lives with the class).
 */
public final class StableHash {
    /** Deeper nesting than this is taken as a cycle (a list that contains itself). */
    private static final int MAX_DEPTH = 64;

    /** Whether a class declares (or inherits from below {@code Object}) its own {@code hashCode()}. */
    private static final ClassValue<Boolean> OWN_HASH_CODE = new ClassValue<>() {
        @Override
        protected Boolean computeValue(Class<?> type) {
            try {
                return type.getMethod("hashCode").getDeclaringClass() != Object.class;
            } catch (NoSuchMethodException e) {
                return false;
            }
        }
    };

    private StableHash() {}

    /**
     * The stable hash of {@code value} ({@code null}: 0).
     *
     * @throws UnstableKeyException if the value (or a part of it) hashes by identity
     */
    public static int of(Object value) {
        return of(value, 0);
    }

    private static int of(Object v, int depth) {
        if (depth > MAX_DEPTH) {
            throw new UnstableKeyException("The key is nested more than " + MAX_DEPTH + " levels deep (does a list or"
                    + " map contain itself?): key by a value of bounded depth");
        }
        if (v == null) {
            return 0;
        }
        if (v instanceof String || v instanceof Long || v instanceof Integer || v instanceof UUID
                || v instanceof Short || v instanceof Byte || v instanceof Character || v instanceof Boolean
                || v instanceof Double || v instanceof Float) {
            return v.hashCode();
        }
        if (v instanceof Enum<?> e) {
            return e.name().hashCode();
        }
        if (v instanceof Tuple2<?, ?> t) {
            return 31 * of(t.f0(), depth + 1) + of(t.f1(), depth + 1);
        }
        if (v instanceof Tuple3<?, ?, ?> t) {
            return 31 * (31 * of(t.f0(), depth + 1) + of(t.f1(), depth + 1)) + of(t.f2(), depth + 1);
        }
        if (v instanceof Record r) {
            RecordSerializer.RecordShape shape = RecordSerializer.RecordShape.of(r.getClass());
            int h = 0;
            for (int i = 0; i < shape.size(); i++) {
                h = 31 * h + of(shape.get(r, i), depth + 1);
            }
            return h;
        }
        if (v instanceof List<?> list) {
            int h = 1;
            for (Object e : list) {
                h = 31 * h + of(e, depth + 1);
            }
            return h;
        }
        if (v instanceof Map<?, ?> map) {
            int h = 0;
            for (Map.Entry<?, ?> e : map.entrySet()) {
                h += of(e.getKey(), depth + 1) ^ of(e.getValue(), depth + 1);
            }
            return h;
        }
        if (v instanceof Set<?> set) {
            int h = 0;
            for (Object e : set) {
                h += of(e, depth + 1);
            }
            return h;
        }
        if (!v.getClass().isArray() && OWN_HASH_CODE.get(v.getClass())) {
            return v.hashCode();
        }
        throw new UnstableKeyException(identityHashed(v.getClass()));
    }

    /**
     * Checks, for a key type seen when the job graph is built, that its values can be hashed
     * stably: the types above, and records whose components' declared types are such types or
     * not known until run time ({@code Object}, an interface, a type variable). A type not known
     * until run time is checked on each key instead.
     *
     * @return {@code null} if it can, else why not (a sentence naming the type)
     */
    public static String check(Class<?> type) {
        return check(type, 0);
    }

    private static String check(Class<?> type, int depth) {
        if (type.isPrimitive() || type == Object.class || type.isEnum()
                || (type.getSuperclass() != null && type.getSuperclass().isEnum()) || type.isInterface()
                || List.class.isAssignableFrom(type) || Map.class.isAssignableFrom(type)
                || Set.class.isAssignableFrom(type) || depth > 8) {
            return null;
        }
        if (type.isRecord()) {
            for (var c : type.getRecordComponents()) {
                String problem = check(c.getType(), depth + 1);
                if (problem != null) {
                    return problem;
                }
            }
            return null;
        }
        if (type.isArray() || (!OWN_HASH_CODE.get(type) && !Modifier.isAbstract(type.getModifiers()))) {
            return identityHashed(type);
        }
        return null;
    }

    private static String identityHashed(Class<?> type) {
        if (type.isArray()) {
            return "Values of " + type.getTypeName() + " hash by identity (an array: its hashCode() and equals() are"
                    + " those of Object), so the same key would fall in a different key group in every JVM, and an"
                    + " equal key would never find its state again, not even in the same JVM. Key by a String, a boxed"
                    + " primitive, an enum, a UUID, a record, a Tuple2/Tuple3, a List or a Map of these; for bytes, a"
                    + " String of their hex or Base64 form, or a List<Byte>";
        }
        return "Values of " + type.getTypeName() + " hash by identity (it does not override hashCode()), so the same"
                + " key would fall in a different key group in every JVM and its state could not be restored or"
                + " exchanged between processes. Key by a String, a boxed primitive, an enum, a UUID, a record, a"
                + " Tuple2/Tuple3, a List or a Map of these, or give " + type.getSimpleName() + " a hashCode()"
                + " computed from its value";
    }
}
