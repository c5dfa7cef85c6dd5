package io.sluice.rest.server;

import io.javalin.http.Context;
import io.sluice.rest.RestException;
import io.sluice.rest.RestOptions;
import io.sluice.rest.RestServerConfig;
import java.net.URI;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Protects a server on loopback against DNS rebinding: a web page from {@code evil.example} whose
 * name is made to resolve to 127.0.0.1 reaches the server with {@code Host: evil.example}, and a
 * browser sends the page's {@code Origin}. On loopback a request is answered only when both name
 * {@code localhost}, {@code 127.0.0.1}, {@code [::1]} or a host of {@code rest.allowed-hosts} (any
 * port); otherwise 403. A request without those headers (not from a browser) passes. A server off
 * loopback does not check (it has a token, or was told to serve everyone). Immutable; request threads.
 */
final class HostHeaderCheck {
    private static final List<String> LOOPBACK_NAMES = List.of("localhost", "127.0.0.1", "::1");

    /** {@code null}: no check (a server off loopback). */
    private final @Nullable Set<String> allowed;
    private final String bindAddress;

    HostHeaderCheck(RestServerConfig config) {
        this.bindAddress = config.bindAddress();
        if (!config.onLoopback()) {
            this.allowed = null;
            return;
        }
        Set<String> names = new LinkedHashSet<>(LOOPBACK_NAMES);
        names.add(normalize(config.bindAddress()));
        for (String h : config.allowedHosts()) {
            names.add(normalize(h));
        }
        this.allowed = Set.copyOf(names);
    }

    /** Throws a 403 {@link RestException} for a foreign {@code Host} or {@code Origin}. */
    void check(Context ctx) {
        if (allowed == null) {
            return;
        }
        String host = ctx.header("Host");
        if (host != null && !allowed.contains(normalize(hostOf(host)))) {
            throw refused("for the host '" + host + "'");
        }
        String origin = ctx.header("Origin");
        if (origin != null && !origin.equals("null")) {
            String originHost;
            try {
                originHost = URI.create(origin).getHost();
            } catch (IllegalArgumentException e) {
                originHost = null;
            }
            if (originHost == null || !allowed.contains(normalize(originHost))) {
                throw refused("from a page of the origin '" + origin + "'");
            }
        }
    }

    private RestException refused(String what) {
        return new RestException(403, "Refused a request " + what + ": this server listens on " + bindAddress
                + " (loopback) and answers only requests addressed to localhost, 127.0.0.1 or [::1], so that a web page"
                + " cannot reach it through a DNS name that points here (DNS rebinding). If this machine is reached"
                + " under that name, add it to " + RestOptions.ALLOWED_HOSTS.key());
    }

    /** The host of a Host header: without the port, IPv6 brackets removed. */
    private static String hostOf(String header) {
        String h = header.strip();
        if (h.startsWith("[")) {
            int end = h.indexOf(']');
            return end > 0 ? h.substring(1, end) : h;
        }
        int colon = h.indexOf(':');
        return colon >= 0 && h.indexOf(':', colon + 1) < 0 ? h.substring(0, colon) : h;
    }

    private static String normalize(String host) {
        String h = host.strip().toLowerCase(Locale.ROOT);
        if (h.startsWith("[") && h.endsWith("]")) {
            h = h.substring(1, h.length() - 1);
        }
        return h.endsWith(".") ? h.substring(0, h.length() - 1) : h;
    }
}
