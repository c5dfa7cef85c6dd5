package io.sluice.rpc.remote;

import java.io.Serializable;
import java.lang.reflect.Proxy;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * Remote gateway proxies: making them (a {@link java.lang.reflect.Proxy} over a
 * {@link RemoteGatewayHandler} whose calls go out through one service's {@link OutboundCalls}), and
 * looking into one (its target, its fencing token). Stateless; any thread.
 */
final class GatewayProxies {
    private GatewayProxies() {}

    /** A proxy implementing {@code interfaces} that calls {@code endpoint} at {@code target} through {@code calls}. */
    static Object create(OutboundCalls calls, ClassLoader loader, RpcAddress target, String endpoint,
                         List<Class<?>> interfaces, UUID token, Map<String, Serializable> constants) {
        RemoteGatewayHandler handler = new RemoteGatewayHandler(calls, target, endpoint, interfaces, token, constants);
        return Proxy.newProxyInstance(loader, interfaces.toArray(new Class<?>[0]), handler);
    }

    /** The handler behind {@code gateway} if it is a remote proxy (of any service), else empty. */
    static Optional<RemoteGatewayHandler> handlerOf(Object gateway) {
        if (gateway != null && Proxy.isProxyClass(gateway.getClass())
                && Proxy.getInvocationHandler(gateway) instanceof RemoteGatewayHandler h) {
            return Optional.of(h);
        }
        return Optional.empty();
    }

    /** {@code gateway}'s proxy again, carrying {@code fencingToken}; {@code gateway} itself if it is no remote proxy. */
    @SuppressWarnings("unchecked")
    static <G> G withFencingToken(G gateway, UUID fencingToken) {
        return handlerOf(gateway)
                .map(h -> (G) create(h.calls, gateway.getClass().getClassLoader(), h.address, h.endpoint, h.interfaces,
                        fencingToken, h.constants))
                .orElse(gateway);
    }
}
