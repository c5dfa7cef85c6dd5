package io.sluice.rpc.remote;

import java.io.Serializable;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link RpcSerialization.Context} of one {@link RpcService}: turns gateway objects into
 * references (exporting local ones by reference) and references back into proxies or local
 * objects, and registers every gateway interface it meets with the service's
 * {@link RpcMessageTypes}. Thread-safe (called on callers' threads and I/O threads).
 */
final class GatewaySerialization implements RpcSerialization.Context {
    private static final Logger LOG = LoggerFactory.getLogger(GatewaySerialization.class);

    /** Makes a proxy of the service calling {@code endpoint} at {@code target}. */
    @FunctionalInterface
    interface ProxyFactory {
        Object proxy(ClassLoader loader, RpcAddress target, String endpoint, List<Class<?>> interfaces, UUID token,
                     Map<String, Serializable> constants);
    }

    private final Supplier<RpcAddress> address;
    private final EndpointRegistry endpoints;
    private final RpcMessageTypes messageTypes;
    private final ClassLoader classLoader;
    private final ProxyFactory proxies;

    /** @param address the service's own address (known once it is bound; asked only when a message is made or read) */
    GatewaySerialization(Supplier<RpcAddress> address, EndpointRegistry endpoints, RpcMessageTypes messageTypes,
                         ClassLoader classLoader, ProxyFactory proxies) {
        this.address = address;
        this.endpoints = endpoints;
        this.messageTypes = messageTypes;
        this.classLoader = classLoader;
        this.proxies = proxies;
    }

    @Override
    public GatewayReference referenceFor(Object object) {
        if (Proxy.isProxyClass(object.getClass())) {
            return Proxy.getInvocationHandler(object) instanceof RemoteGatewayHandler h ? h.reference() : null;
        }
        List<Class<?>> interfaces = GatewayInterfaces.of(object.getClass());
        if (interfaces.isEmpty()) {
            return null;
        }
        Endpoint endpoint = endpoints.exportByReference(object, interfaces);
        interfaces.forEach(messageTypes::register);
        return new GatewayReference(address.get(), endpoint.name, GatewayInterfaces.names(endpoint.interfaces),
                endpoint.currentToken(), new HashMap<>(endpoint.constants));
    }

    @Override
    public Object resolve(GatewayReference reference) {
        if (reference.address().equals(address.get())) {
            Object target = endpoints.target(reference.endpoint());
            if (target != null) {
                return target;
            }
        }
        List<Class<?>> interfaces = new ArrayList<>();
        for (String name : reference.interfaceNames()) {
            try {
                Class<?> c = Class.forName(name, false, classLoader);
                if (c.isInterface()) {
                    interfaces.add(c);
                    messageTypes.register(c);
                }
            } catch (ClassNotFoundException unknownHere) {
                LOG.debug("Gateway interface {} of '{}' at {} is unknown here; the proxy leaves it out", name,
                        reference.endpoint(), reference.address());
            }
        }
        if (interfaces.isEmpty()) {
            throw new RpcException("None of the gateway interfaces " + reference.interfaceNames() + " of '"
                    + reference.endpoint() + "' at " + reference.address() + " is known here");
        }
        return proxies.proxy(classLoader, reference.address(), reference.endpoint(), interfaces, reference.fencingToken(),
                reference.constants() == null ? Map.of() : reference.constants());
    }

    @Override
    public ClassLoader classLoader() {
        return classLoader;
    }

    @Override
    public RpcMessageTypes messageTypes() {
        return messageTypes;
    }
}
