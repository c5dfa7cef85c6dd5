package io.sluice.rpc.remote;

import java.io.Serializable;
import java.lang.ref.WeakReference;
import java.lang.reflect.Method;
import java.util.List;
import java.util.Map;
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
    private final Supplier<String> notLeadingHint;
    private final Map<String, Method> methods;
    final Map<String, Serializable> constants;

    Endpoint(String name, List<Class<?>> interfaces, Object target, boolean byReference, Supplier<UUID> fencingToken) {
        this(name, interfaces, target, byReference, fencingToken, null);
    }

    /**
     * @param notLeadingHint for the error of a call refused while the endpoint has no token (it does
     *                       not lead): who leads instead, if known; {@code null} or answering {@code null}: nothing to add
     */
    Endpoint(String name, List<Class<?>> interfaces, Object target, boolean byReference, Supplier<UUID> fencingToken,
             Supplier<String> notLeadingHint) {
        this.name = name;
        this.notLeadingHint = notLeadingHint;
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

    /**
     * Throws if this endpoint is fenced, {@code method} is not {@link Unfenced}, and {@code sent} is
     * not its current token.
     */
    void checkFencing(UUID sent, Method method, RpcAddress at) {
        if (fencingToken == null || method.isAnnotationPresent(Unfenced.class)) {
            return;
        }
        UUID current = fencingToken.get();
        if (current != null && current.equals(sent)) {
            return;
        }
        String call = "Endpoint '" + name + "' on " + at + " refuses " + method.getName() + " "
                + (sent == null ? "made without a leader session" : "made for leader session " + sent);
        if (current == null) {
            String hint = notLeadingHint == null ? null : notLeadingHint.get();
            throw new FencingTokenMismatchException(call + ": it has no leader session now (it does not lead"
                    + (hint == null ? "" : "; " + hint) + "). Find the current leader and call it again.", sent, null);
        }
        throw new FencingTokenMismatchException(call + ", but its current leader session is " + current
                + (sent == null ? "" : ": the caller speaks for a leader session that is no longer current (it is no"
                        + " longer leader)") + ". Find the current leader and call it again.", sent, current);
    }
}
