package io.sluice.api;

import io.sluice.api.functions.KeySelector;
import io.sluice.core.serialization.DynamicSerializer;
import io.sluice.core.serialization.StableHash;
import io.sluice.api.errors.InvalidJobException;
import java.lang.invoke.SerializedLambda;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;

/**
 * Checks, when the job graph is built, that the keys of a keyed stream can be written into
 * checkpoints. Java erases a lambda's types, but a serializable lambda (every
 * {@link KeySelector} is one) still records its implementation's signature, and a key selector
 * class its type arguments; so the key type is known for {@code keyBy(e -> e.id())} and
 * {@code keyBy(Event::id)}. Where it is not (a generic selector), the task checks the first key of
 * every new key class instead. It also checks that the keys hash by value ({@link StableHash}), the same
 * in every JVM. Used on the thread that builds the job.
 */
final class KeyTypes {
    private KeyTypes() {}

    /**
     * @throws InvalidJobException if the selector's key type is a concrete class the default key
     *         serializer cannot write, naming the operator and what to do
     */
    static void requireCheckpointableKeys(KeySelector<?, ?> selector, String operatorName) {
        Class<?> keyType = keyTypeOf(selector);
        if (keyType == null || keyType == Object.class || keyType.isInterface()
                || Modifier.isAbstract(keyType.getModifiers()) || DynamicSerializer.supports(keyType)) {
            return;
        }
        throw new InvalidJobException("Operator '" + operatorName + "' is keyed by values of " + keyType.getName()
                + ", which the default key serializer cannot write into checkpoints (Sluice does not use Java"
                + " serialization). Declare a serializer for the key with keyBy(selector, TypeSerializer), or key by"
                + " a record, an enum, a UUID, a String, a boxed primitive or a Tuple2/Tuple3 of these.");
    }

    /**
     * Checks that the selector's key type, when it can be seen, hashes by value (see
     * {@link StableHash}): key groups come from that hash, in every process that routes or restores
     * the key. Applies whether or not a key serializer is declared.
     *
     * @throws InvalidJobException naming the operator and the type, if its values hash by identity
     */
    static void requireStableKeyHash(KeySelector<?, ?> selector, String operatorName) {
        Class<?> keyType = keyTypeOf(selector);
        String problem = keyType == null ? null : StableHash.check(keyType);
        if (problem != null) {
            throw new InvalidJobException("Operator '" + operatorName + "' is keyed by values of " + keyType.getName()
                    + ", which cannot be hashed the same way in every JVM. " + problem + ".");
        }
    }

    /** The selector's declared key type, or {@code null} if it cannot be seen. */
    static Class<?> keyTypeOf(KeySelector<?, ?> selector) {
        Class<?> fromLambda = lambdaReturnType(selector);
        if (fromLambda != null) {
            return fromLambda;
        }
        for (Type t : selector.getClass().getGenericInterfaces()) {
            if (t instanceof ParameterizedType p && p.getRawType() == KeySelector.class
                    && p.getActualTypeArguments()[1] instanceof Class<?> c) {
                return c;
            }
        }
        return null;
    }

    private static Class<?> lambdaReturnType(Object selector) {
        if (!selector.getClass().isSynthetic()) {
            return null;
        }
        try {
            Method writeReplace = selector.getClass().getDeclaredMethod("writeReplace");
            writeReplace.setAccessible(true);
            if (!(writeReplace.invoke(selector) instanceof SerializedLambda lambda)) {
                return null;
            }
            String signature = lambda.getInstantiatedMethodType();
            return classOf(signature.substring(signature.indexOf(')') + 1), selector.getClass().getClassLoader());
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null; // not visible: the task checks the keys it sees
        }
    }

    private static Class<?> classOf(String descriptor, ClassLoader loader) throws ClassNotFoundException {
        return switch (descriptor.charAt(0)) {
            case 'J' -> Long.class;
            case 'I' -> Integer.class;
            case 'D' -> Double.class;
            case 'F' -> Float.class;
            case 'Z' -> Boolean.class;
            case 'S' -> Short.class;
            case 'B' -> Byte.class;
            case 'C' -> Character.class;
            case 'L' -> Class.forName(descriptor.substring(1, descriptor.length() - 1).replace('/', '.'), false, loader);
            case '[' -> Class.forName(descriptor.replace('/', '.'), false, loader);
            default -> null;
        };
    }
}
