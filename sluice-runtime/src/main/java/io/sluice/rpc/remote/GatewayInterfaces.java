package io.sluice.rpc.remote;

import java.io.Serializable;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;

/**
 * Which interfaces are gateways, and what each gateway method is over RPC. A gateway interface is
 * one registered with {@link #register(Class)} (every interface given to
 * {@link RpcService#expose} is), or any interface in an {@code io.sluice} package whose name ends
 * in {@code Gateway} ({@code TaskExecutorGateway}, {@code JobMasterGateway},
 * {@code DispatcherGateway}, ...). An object implementing one is passed by reference, never
 * serialized. Thread-safe.
 */
final class GatewayInterfaces {
    private static final Set<Class<?>> REGISTERED = ConcurrentHashMap.newKeySet();
    private static final java.util.concurrent.atomic.AtomicInteger GENERATION = new java.util.concurrent.atomic.AtomicInteger();
    /** Per class (a ClassValue, so a job's classes can still be unloaded): its gateway interfaces, as of a generation. */
    private static final ClassValue<Found> OF_CLASS = new ClassValue<>() {
        @Override
        protected Found computeValue(Class<?> type) {
            int generation = GENERATION.get();
            Set<Class<?>> found = new LinkedHashSet<>();
            collect(type, found);
            return new Found(generation, List.copyOf(found));
        }
    };

    private record Found(int generation, List<Class<?>> interfaces) {
    }
    private static final Map<Method, String> SIGNATURES = new ConcurrentHashMap<>();

    private GatewayInterfaces() {}

    /** What a gateway method is over RPC. */
    enum Kind {
        /** Returns a {@code CompletableFuture}: a request, answered or failed within the timeout. */
        REQUEST,
        /** Returns {@code void}: a one-way message, no answer. */
        ONE_WAY,
        /** A synchronous getter without arguments, answered by the proxy from its constants. */
        GETTER
    }

    static void register(Class<?> gatewayInterface) {
        if (!gatewayInterface.isInterface()) {
            throw new IllegalArgumentException(gatewayInterface.getName() + " is not an interface; only interfaces can be gateways");
        }
        if (REGISTERED.add(gatewayInterface)) {
            GENERATION.incrementAndGet(); // every class's answer is computed again
        }
    }

    static boolean isGateway(Class<?> type) {
        return type.isInterface() && (REGISTERED.contains(type)
                || (type.getName().startsWith("io.sluice.") && type.getSimpleName().endsWith("Gateway")));
    }

    /** The gateway interfaces {@code type} implements (directly or inherited), most specific first; empty if none. */
    static List<Class<?>> of(Class<?> type) {
        Found found = OF_CLASS.get(type);
        if (found.generation() != GENERATION.get()) {
            OF_CLASS.remove(type);
            found = OF_CLASS.get(type);
        }
        return found.interfaces();
    }

    private static void collect(Class<?> type, Set<Class<?>> found) {
        for (Class<?> c = type; c != null; c = c.getSuperclass()) {
            if (isGateway(c)) {
                found.add(c);
            }
            for (Class<?> i : c.getInterfaces()) {
                if (isGateway(i)) {
                    found.add(i);
                }
                collect(i, found);
            }
        }
    }

    static Kind kind(Method method) {
        Class<?> returns = method.getReturnType();
        if (returns == CompletableFuture.class) {
            return Kind.REQUEST;
        }
        if (returns == void.class) {
            return Kind.ONE_WAY;
        }
        if (method.getParameterCount() == 0) {
            return Kind.GETTER;
        }
        throw new IllegalArgumentException(describe(method) + " returns " + returns.getSimpleName()
                + ": a gateway method must return CompletableFuture (a request) or void (a one-way message),"
                + " or be a getter without arguments answered from constants");
    }

    /** Checks that every method of {@code gateway} can be called over RPC. */
    static void validate(Class<?> gateway) {
        for (Method m : gateway.getMethods()) {
            if (!Modifier.isStatic(m.getModifiers())) {
                kind(m);
            }
        }
    }

    /** The method's name and parameter types, which identify it on the wire: {@code cancelTask(io.sluice.job.ExecutionAttemptId)}. */
    static String signature(Method method) {
        return SIGNATURES.computeIfAbsent(method, m -> m.getName() + Arrays.stream(m.getParameterTypes())
                .map(Class::getName).collect(Collectors.joining(",", "(", ")")));
    }

    /** {@code TaskExecutorGateway.submitTask}, for messages. */
    static String describe(Method method) {
        return method.getDeclaringClass().getSimpleName() + "." + method.getName();
    }

    /** The methods of the interfaces by signature (the first interface's wins on a clash). */
    static Map<String, Method> methodsBySignature(List<Class<?>> interfaces) {
        Map<String, Method> out = new HashMap<>();
        for (Class<?> i : interfaces) {
            for (Method m : i.getMethods()) {
                if (!Modifier.isStatic(m.getModifiers())) {
                    out.putIfAbsent(signature(m), m);
                }
            }
        }
        return out;
    }

    /**
     * The values of {@code target}'s synchronous getters (such as {@code id()} and
     * {@code numberOfSlots()}), for the proxies of a reference to it. A getter that throws or returns
     * something not serializable is left out (its proxies then fail naming it).
     */
    static Map<String, Serializable> constantsOf(Object target, List<Class<?>> interfaces) {
        Map<String, Serializable> out = new HashMap<>();
        for (Class<?> i : interfaces) {
            for (Method m : i.getMethods()) {
                if (Modifier.isStatic(m.getModifiers()) || m.getParameterCount() != 0
                        || kind(m) != Kind.GETTER || out.containsKey(m.getName())) {
                    continue;
                }
                try {
                    Object value = m.invoke(target);
                    if (value == null || value instanceof Serializable) {
                        out.put(m.getName(), (Serializable) value);
                    }
                } catch (ReflectiveOperationException | RuntimeException e) {
                    // left out: a proxy asked for it fails naming the getter
                }
            }
        }
        return out;
    }

    static List<String> names(List<Class<?>> interfaces) {
        List<String> out = new ArrayList<>(interfaces.size());
        for (Class<?> i : interfaces) {
            out.add(i.getName());
        }
        return out;
    }
}
