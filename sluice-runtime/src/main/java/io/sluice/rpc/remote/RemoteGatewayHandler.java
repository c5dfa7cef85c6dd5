package io.sluice.rpc.remote;

import java.io.Serializable;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;

/**
 * Behind every remote gateway proxy: turns a method call into a request ({@code CompletableFuture}
 * methods) or a one-way message ({@code void} methods) to one endpoint of one address, and answers
 * synchronous getters from its constants. Two proxies are equal when they call the same endpoint of
 * the same address with the same fencing token. Thread-safe (immutable).
 */
final class RemoteGatewayHandler implements InvocationHandler {
    /** Where its calls go out: the service that made the proxy. */
    final OutboundCalls calls;
    final RpcAddress address;
    final String endpoint;
    final List<Class<?>> interfaces;
    final UUID fencingToken;
    final Map<String, Serializable> constants;

    RemoteGatewayHandler(OutboundCalls calls, RpcAddress address, String endpoint, List<Class<?>> interfaces,
                         UUID fencingToken, Map<String, Serializable> constants) {
        this.calls = calls;
        this.address = address;
        this.endpoint = endpoint;
        this.interfaces = List.copyOf(interfaces);
        this.fencingToken = fencingToken;
        this.constants = constants;
    }

    GatewayReference reference() {
        return new GatewayReference(address, endpoint, GatewayInterfaces.names(interfaces), fencingToken,
                new java.util.HashMap<>(constants));
    }

    @Override
    public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
        if (method.getDeclaringClass() == Object.class) {
            return switch (method.getName()) {
                case "equals" -> args[0] != null && Proxy.isProxyClass(args[0].getClass())
                        && Proxy.getInvocationHandler(args[0]) instanceof RemoteGatewayHandler other
                        && other.address.equals(address) && other.endpoint.equals(endpoint)
                        && Objects.equals(other.fencingToken, fencingToken);
                case "hashCode" -> Objects.hash(address, endpoint, fencingToken);
                case "toString" -> toString();
                default -> throw new UnsupportedOperationException(method.toString());
            };
        }
        return switch (GatewayInterfaces.kind(method)) {
            case REQUEST -> calls.request(this, method, args);
            case ONE_WAY -> {
                calls.tell(this, method, args);
                yield null;
            }
            case GETTER -> {
                if (constants.containsKey(method.getName())) {
                    yield constants.get(method.getName());
                }
                if (method.isDefault()) {
                    yield InvocationHandler.invokeDefault(proxy, method, args);
                }
                throw new IllegalStateException(GatewayInterfaces.describe(method) + "() of the remote gateway "
                        + this + " is a synchronous getter, which a remote proxy answers from the constants it was"
                        + " created with, and none was given for '" + method.getName() + "'. Pass it in the constants"
                        + " of RpcService.remoteGateway (the values come from the registration of the remote side).");
            }
        };
    }

    @Override
    public String toString() {
        return "remote " + interfaces.get(0).getSimpleName() + " '" + endpoint + "' at " + address;
    }
}
