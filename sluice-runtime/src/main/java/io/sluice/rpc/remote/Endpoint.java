package io.sluice.rpc.remote;

import java.io.Serializable;
import java.lang.ref.WeakReference;
import java.lang.reflect.Method;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.function.Supplier;

/**
 * One object exposed on an {@link RpcService} under a name: the gateway interfaces callers may use,
 * the object (held strongly when exposed by name, weakly when exported because it was passed by
 * reference), and the supplier of its current fencing token ({@code null}: unfenced). Immutable;
 * thread-safe.
 */
final class Endpoint {
    final String name;
    final List<Class<?>> interfaces;
    final boolean byReference;
    private final Object strongTarget;
    private final WeakReference<Object> weakTarget;
    private final Supplier<UUID> fencingToken;
    private final Map<String, Method> methods;
    final Map<String, Serializable> constants;

    Endpoint(String name, List<Class<?>> interfaces, Object target, boolean byReference, Supplier<UUID> fencingToken) {
        this.name = name;
        this.interfaces = List.copyOf(interfaces);
        this.byReference = byReference;
        this.strongTarget = byReference ? null : target;
        this.weakTarget = byReference ? new WeakReference<>(target) : null;
        this.fencingToken = fencingToken;
        this.methods = GatewayInterfaces.methodsBySignature(this.interfaces);
        this.constants = GatewayInterfaces.constantsOf(target, this.interfaces);
    }

    /** The exposed object, or {@code null} if it was exported by reference and has been garbage-collected. */
    Object target() {
        return byReference ? weakTarget.get() : strongTarget;
    }

    Method method(String signature) {
        return methods.get(signature);
    }

    /** The current fencing token, {@code null} if unfenced or if the supplier has none now. */
    UUID currentToken() {
        return fencingToken == null ? null : fencingToken.get();
    }

    boolean fenced() {
        return fencingToken != null;
    }

    /** Throws if this endpoint is fenced and {@code sent} is not its current token. */
    void checkFencing(UUID sent, String method, RpcAddress at) {
        if (fencingToken == null) {
            return;
        }
        UUID current = fencingToken.get();
        if (current == null || !Objects.equals(current, sent)) {
            throw new FencingTokenMismatchException("Endpoint '" + name + "' on " + at + " refuses " + method
                    + ": the call carries fencing token " + sent + " but "
                    + (current == null ? "the endpoint has no leader session now (it does not lead)"
                                       : "its current leader session is " + current)
                    + ". The caller speaks for an old leader or reached a process that does not lead;"
                    + " find the current leader and call it again.");
        }
    }
}
