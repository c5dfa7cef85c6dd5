package io.sluice.rpc.remote;

import java.io.Serializable;
import java.lang.reflect.Field;
import java.lang.reflect.GenericArrayType;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.lang.reflect.TypeVariable;
import java.lang.reflect.WildcardType;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The classes an RPC service reads from the wire: an allowlist derived from the gateway interfaces
 * it serves and calls. For every method of such an interface, its parameter types and its result
 * type ({@code CompletableFuture<X>}: {@code X}; a getter: its return type) are allowed, and so,
 * recursively, is what those types contain (record components; the non-transient, non-static
 * fields of other classes; type arguments of collections and {@code Optional}; serializable
 * superclasses). Besides those, only a fixed vocabulary: primitives, boxed primitives, strings,
 * {@code UUID}, the {@code java.time} values, the JDK's standard collections (whose elements are
 * checked in turn), and the RPC layer's own envelopes ({@link GatewayReference},
 * {@link ThrowableEnvelope}, {@link OptionalValue}).
 *
 * <p>Where a declared type is an abstract Sluice type (an interface or abstract class in
 * {@code io.sluice}), a Sluice class implementing it is allowed when it arrives, and what it
 * contains from then on; a sealed type allows exactly its permitted subclasses. A field declared
 * {@code Object} or {@code Serializable} allows nothing of its own. Throwables of Sluice and of the
 * JDK's {@code java.*} packages are allowed (they travel in envelopes, see {@link RpcSerialization});
 * a throwable of any other class arrives as a {@link SerializedThrowable}. Anything else, a JDK class outside the vocabulary or a Sluice class no
 * gateway mentions, is refused.
 *
 * <p>Thread-safe: {@link #register} (any thread, on expose and proxy creation) and
 * {@link #allows} (I/O threads, for every class descriptor read) may run at once; the allowlist
 * only grows.
 */
final class RpcMessageTypes {
    /** Always allowed (with their serializable superclasses). */
    private static final Set<Class<?>> VOCABULARY = Set.of(Object.class, String.class, Boolean.class, Byte.class,
            Short.class, Character.class, Integer.class, Long.class, Float.class, Double.class, Number.class,
            Enum.class, java.util.UUID.class, StackTraceElement.class, Optional.class, Map.Entry.class,
            java.time.Duration.class, java.time.Instant.class, java.time.LocalDate.class, java.time.LocalDateTime.class,
            java.time.LocalTime.class, java.time.ZonedDateTime.class, java.time.OffsetDateTime.class,
            java.time.ZoneOffset.class, java.time.Period.class,
            GatewayReference.class, RpcAddress.class, ThrowableEnvelope.class, RpcSerialization.ThrowablePlaceholder.class,
            OptionalValue.class, SerializedThrowable.class, SerializedThrowable.Unrecoverable.class,
            RuntimeException.class, Exception.class, Throwable.class);
    /** The JDK classes that stand in for others in serialized form, and the standard collections. */
    private static final Set<String> VOCABULARY_NAMES = Set.of("java.time.Ser", "java.time.ZoneRegion",
            "java.util.ArrayList", "java.util.LinkedList", "java.util.ArrayDeque", "java.util.HashMap",
            "java.util.LinkedHashMap", "java.util.TreeMap", "java.util.HashSet", "java.util.LinkedHashSet",
            "java.util.TreeSet", "java.util.EnumMap", "java.util.KeyValueHolder", "java.util.AbstractMap$SimpleEntry",
            "java.util.AbstractMap$SimpleImmutableEntry", "java.util.Arrays$ArrayList", "java.util.CollSer",
            "java.util.ImmutableCollections$ListN", "java.util.ImmutableCollections$List12",
            "java.util.ImmutableCollections$SetN", "java.util.ImmutableCollections$Set12",
            "java.util.ImmutableCollections$MapN", "java.util.ImmutableCollections$Map1",
            "java.util.Collections$EmptyList", "java.util.Collections$EmptySet", "java.util.Collections$EmptyMap",
            "java.util.Collections$SingletonList", "java.util.Collections$SingletonSet",
            "java.util.Collections$SingletonMap", "java.util.Collections$UnmodifiableCollection",
            "java.util.Collections$UnmodifiableList", "java.util.Collections$UnmodifiableRandomAccessList",
            "java.util.Collections$UnmodifiableSet", "java.util.Collections$UnmodifiableSortedSet",
            "java.util.Collections$UnmodifiableMap", "java.util.Collections$UnmodifiableSortedMap",
            "java.util.concurrent.ConcurrentHashMap", "java.util.concurrent.ConcurrentHashMap$Segment",
            "java.util.concurrent.CopyOnWriteArrayList", "java.util.concurrent.locks.ReentrantLock",
            "java.util.concurrent.locks.ReentrantLock$Sync", "java.util.concurrent.locks.ReentrantLock$NonfairSync",
            "java.util.concurrent.locks.AbstractQueuedSynchronizer",
            "java.util.concurrent.locks.AbstractOwnableSynchronizer");

    private final Set<Class<?>> allowed = ConcurrentHashMap.newKeySet();
    private final Set<Class<?>> gateways = ConcurrentHashMap.newKeySet();
    /** Abstract Sluice types fields are declared with: their Sluice implementations are allowed on arrival. */
    private final List<Class<?>> openTypes = new CopyOnWriteArrayList<>();

    /** Allows what the calls of {@code gatewayInterface} (and the interfaces it extends) carry. Idempotent. */
    void register(Class<?> gatewayInterface) {
        if (!gateways.add(gatewayInterface)) {
            return;
        }
        synchronized (this) {
            for (Method m : gatewayInterface.getMethods()) {
                if (Modifier.isStatic(m.getModifiers())) {
                    continue;
                }
                for (Type parameter : m.getGenericParameterTypes()) {
                    walk(parameter);
                }
                walk(m.getGenericReturnType());
            }
        }
    }

    /**
     * Whether a message may hold an instance of {@code serialClass}: a class read from the stream, or
     * the class of what the RPC stream itself made of one (a gateway proxy or local gateway object
     * for a reference, an {@code Optional}, a recreated throwable), which the JDK checks too.
     */
    boolean allows(Class<?> serialClass) {
        Class<?> component = serialClass;
        while (component.isArray()) {
            component = component.getComponentType();
        }
        Class<?> type = component;
        if (type.isPrimitive() || allowed.contains(type) || VOCABULARY.contains(type)
                || VOCABULARY_NAMES.contains(type.getName())) {
            return true;
        }
        boolean sluice = type.getName().startsWith("io.sluice.");
        boolean arrives = sluice && openTypes.stream().anyMatch(open -> open.isAssignableFrom(type));
        boolean throwable = Throwable.class.isAssignableFrom(type) && (sluice || type.getName().startsWith("java."));
        if (!Serializable.class.isAssignableFrom(type) && !GatewayInterfaces.of(type).isEmpty()) {
            return true; // a local gateway object a reference resolved to: it cannot be read from the stream itself
        }
        if (arrives || throwable) {
            synchronized (this) {
                walk(type);
            }
            return true;
        }
        return false;
    }

    /** The gateway interfaces registered so far (for tests and messages). */
    Set<Class<?>> gatewayInterfaces() {
        return Set.copyOf(gateways);
    }

    /** The classes derived so far, without the vocabulary (for tests). */
    Set<Class<?>> derived() {
        return Set.copyOf(allowed);
    }

    /** The abstract Sluice types whose implementations are allowed on arrival (for tests). */
    List<Class<?>> openTypes() {
        return List.copyOf(openTypes);
    }

    // Under the monitor.
    private void walk(Type type) {
        if (type instanceof Class<?> c) {
            walkClass(c);
        } else if (type instanceof ParameterizedType p) {
            walk(p.getRawType());
            for (Type argument : p.getActualTypeArguments()) {
                walk(argument);
            }
        } else if (type instanceof GenericArrayType a) {
            walk(a.getGenericComponentType());
        } else if (type instanceof WildcardType w) {
            for (Type bound : w.getUpperBounds()) {
                walk(bound);
            }
        } else if (type instanceof TypeVariable<?> v) {
            for (Type bound : v.getBounds()) {
                walk(bound);
            }
        }
    }

    private void walkClass(Class<?> c) {
        while (c.isArray()) {
            c = c.getComponentType();
        }
        if (needsNoEntry(c)) {
            return;
        }
        if (c.isInterface() || Modifier.isAbstract(c.getModifiers())) {
            if (c.isSealed()) {
                for (Class<?> permitted : c.getPermittedSubclasses()) {
                    walkClass(permitted);
                }
            } else if (c.getName().startsWith("io.sluice.") && !openTypes.contains(c)) {
                openTypes.add(c);
            }
            if (!Serializable.class.isAssignableFrom(c) || c.isInterface()) {
                return;
            }
        }
        if (!allowed.add(c)) {
            return;
        }
        for (Class<?> s = c.getSuperclass(); s != null && Serializable.class.isAssignableFrom(s); s = s.getSuperclass()) {
            allowed.add(s);
        }
        if (!c.isEnum()) {
            walkMembers(c);
        }
    }

    /** Whether {@code c} is allowed without an entry of its own: vocabulary, JDK collections, gateways. */
    private static boolean needsNoEntry(Class<?> c) {
        if (c.isPrimitive() || c == Object.class || c == Serializable.class || c == CompletableFuture.class
                || VOCABULARY.contains(c) || VOCABULARY_NAMES.contains(c.getName())) {
            return true;
        }
        if (Optional.class == c || Collection.class.isAssignableFrom(c) || Map.class.isAssignableFrom(c)) {
            return true; // the JDK's collections are vocabulary; their element types are walked as type arguments
        }
        return GatewayInterfaces.isGateway(c); // travels as a reference
    }

    /** Walks what instances of {@code c} carry: its record components, else its serialized fields. */
    private void walkMembers(Class<?> c) {
        if (c.isRecord()) {
            for (RecordComponent component : c.getRecordComponents()) {
                walk(component.getGenericType());
            }
            return;
        }
        List<Field> fields = new ArrayList<>();
        for (Class<?> k = c; k != null && k != Object.class; k = k.getSuperclass()) {
            fields.addAll(List.of(k.getDeclaredFields()));
        }
        for (Field f : fields) {
            int modifiers = f.getModifiers();
            if (!Modifier.isStatic(modifiers) && !Modifier.isTransient(modifiers)) {
                walk(f.getGenericType());
            }
        }
    }
}
