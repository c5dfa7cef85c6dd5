package io.sluice.rpc.remote;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.protocol.DispatcherGateway;
import io.sluice.protocol.JobMasterGateway;
import io.sluice.protocol.TaskExecutorGateway;
import java.io.Serializable;
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
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Every argument and result type of the gateways that go over RPC is serializable, down through
 * record components, collections and optionals (or is a gateway, passed by reference, or a
 * throwable, which the RPC carries in an envelope), and every method is a request, a one-way
 * message or a getter. Catches a new field of a non-serializable type in a shared record.
 */
class GatewayTypesSerializableTest {

    @ParameterizedTest
    @ValueSource(classes = {TaskExecutorGateway.class, JobMasterGateway.class, DispatcherGateway.class})
    void everyArgumentAndResultTypeCanCrossTheWire(Class<?> gateway) {
        GatewayInterfaces.validate(gateway);
        List<String> problems = new ArrayList<>();
        Set<Type> seen = new HashSet<>();
        for (Method m : gateway.getMethods()) {
            if (Modifier.isStatic(m.getModifiers())) {
                continue;
            }
            for (Type p : m.getGenericParameterTypes()) {
                check(p, gateway.getSimpleName() + "." + m.getName() + " argument", problems, seen);
            }
            Type returns = m.getGenericReturnType();
            if (returns instanceof ParameterizedType pt && pt.getRawType() == CompletableFuture.class) {
                check(pt.getActualTypeArguments()[0], gateway.getSimpleName() + "." + m.getName() + " result", problems, seen);
            } else if (m.getReturnType() != void.class) {
                check(returns, gateway.getSimpleName() + "." + m.getName() + " constant", problems, seen);
            }
        }
        assertThat(problems).as("types that cannot cross the wire").isEmpty();
    }

    private static void check(Type type, String where, List<String> problems, Set<Type> seen) {
        if (!seen.add(type)) {
            return;
        }
        if (type instanceof ParameterizedType pt) {
            Class<?> raw = (Class<?>) pt.getRawType();
            if (Collection.class.isAssignableFrom(raw) || Map.class.isAssignableFrom(raw) || raw == Optional.class) {
                for (Type arg : pt.getActualTypeArguments()) {
                    check(arg, where + " element", problems, seen);
                }
                return;
            }
            check(raw, where, problems, seen);
            return;
        }
        if (type instanceof GenericArrayType ga) {
            check(ga.getGenericComponentType(), where + " element", problems, seen);
            return;
        }
        if (type instanceof WildcardType || type instanceof TypeVariable<?>) {
            return; // user types: not part of a gateway's own contract
        }
        Class<?> c = (Class<?>) type;
        if (c.isArray()) {
            check(c.getComponentType(), where + " element", problems, seen);
            return;
        }
        if (c.isPrimitive() || Throwable.class.isAssignableFrom(c) || GatewayInterfaces.isGateway(c)) {
            return;
        }
        if (!Serializable.class.isAssignableFrom(c)) {
            problems.add(where + ": " + c.getName() + " is not Serializable");
            return;
        }
        if (c.isRecord()) {
            for (RecordComponent rc : c.getRecordComponents()) {
                check(rc.getGenericType(), c.getSimpleName() + "." + rc.getName(), problems, seen);
            }
        }
    }
}
