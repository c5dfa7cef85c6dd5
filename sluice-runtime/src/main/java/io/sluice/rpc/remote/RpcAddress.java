package io.sluice.rpc.remote;

import java.io.Serializable;
import java.util.Objects;

/**
 * Where an {@link RpcService} listens: a host name or IP literal and a TCP port, written
 * {@code host:port}. Immutable.
 */
public record RpcAddress(String host, int port) implements Serializable {
    public RpcAddress {
        Objects.requireNonNull(host, "host");
        if (host.isBlank()) {
            throw new IllegalArgumentException("An RPC address needs a host, got '" + host + "'");
        }
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("RPC port " + port + " of " + host + " is outside 0..65535");
        }
    }

    /** Parses {@code host:port} (an IPv6 literal in brackets: {@code [::1]:6123}). */
    public static RpcAddress parse(String hostAndPort) {
        int colon = hostAndPort == null ? -1 : hostAndPort.lastIndexOf(':');
        if (colon <= 0 || colon == hostAndPort.length() - 1) {
            throw new IllegalArgumentException("Not an RPC address: '" + hostAndPort + "'; expected host:port, e.g. 127.0.0.1:6123");
        }
        String host = hostAndPort.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        try {
            return new RpcAddress(host, Integer.parseInt(hostAndPort.substring(colon + 1)));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("Not an RPC address: '" + hostAndPort + "'; the port is not a number", e);
        }
    }

    @Override
    public String toString() {
        return host.indexOf(':') >= 0 ? "[" + host + "]:" + port : host + ":" + port;
    }
}
