package io.sluice.security.tls;

import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslProvider;
import io.sluice.config.Configuration;
import io.sluice.config.IllegalConfigurationException;
import io.sluice.config.SecurityOptions;
import io.sluice.config.SecurityOptions.TlsProvider;
import io.sluice.util.Clock;
import io.sluice.util.SystemClock;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import javax.net.ssl.SSLException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The mutual TLS of a cluster's internal connections (RPC, and data between task managers): one
 * Netty server and one client context from the same {@link TlsIdentity}. A server accepts only a
 * client that presents a certificate signed by a trusted CA; a client accepts only such a server.
 * Host names are not checked: trust is membership of the cluster's CA (docs/security.md).
 * {@link #addServerHandlers} and {@link #addClientHandlers} put the TLS handler first in a channel's
 * pipeline, with a {@link TlsHandshakeGuard} that names a refused peer in the log and in the error.
 *
 * <p>Immutable apart from its handshake counters; thread-safe (channels of any event loop).
 */
public final class InternalTls {
    private static final Logger LOG = LoggerFactory.getLogger(InternalTls.class);
    /** Failed handshakes are logged at most once per this interval (with a count of those left out). */
    static final Duration REFUSAL_LOG_INTERVAL = Duration.ofSeconds(10);

    private final TlsIdentity identity;
    private final SslProvider provider;
    private final SslContext server;
    private final SslContext client;
    private final AtomicLong handshakes = new AtomicLong();
    private final AtomicLong refused = new AtomicLong();
    private final Clock clock;
    /** Per server port ("RPC port host:port", "data port host:port"): refusals there are logged on their own pace. */
    private final java.util.concurrent.ConcurrentHashMap<String, RefusalLog> serverRefusals =
            new java.util.concurrent.ConcurrentHashMap<>();
    /** Failed handshakes of the connections this process opens. */
    private final RefusalLog clientRefusals;

    private InternalTls(TlsIdentity identity, SslProvider provider, Clock clock) {
        this.identity = identity;
        this.provider = provider;
        this.clock = clock;
        this.clientRefusals = new RefusalLog(clock, REFUSAL_LOG_INTERVAL);
        try {
            this.server = SslContextBuilder.forServer(identity.key(), identity.chain())
                    .trustManager(identity.trusted())
                    .clientAuth(ClientAuth.REQUIRE)
                    .sslProvider(provider)
                    .protocols(TlsIdentity.PROTOCOLS)
                    .build();
            this.client = SslContextBuilder.forClient()
                    .keyManager(identity.key(), identity.chain())
                    .trustManager(identity.trusted())
                    .endpointIdentificationAlgorithm(null) // trust is the cluster CA, see the class comment
                    .sslProvider(provider)
                    .protocols(TlsIdentity.PROTOCOLS)
                    .build();
        } catch (SSLException e) {
            throw new IllegalConfigurationException("Cannot set up the internal TLS (" + SecurityOptions.INTERNAL_TLS_KEY.key()
                    + ", " + SecurityOptions.INTERNAL_TLS_CERTIFICATE.key() + ") with " + provider + ": " + e.getMessage());
        }
    }

    /**
     * Mutual TLS with {@code identity}, which must have a key and trusted CAs, through
     * {@code provider} ({@code AUTO}: OpenSSL where it loads, else the JDK's).
     */
    public static InternalTls of(TlsIdentity identity, TlsProvider provider) {
        return of(identity, provider, SystemClock.INSTANCE);
    }

    /** Like {@link #of(TlsIdentity, TlsProvider)}; {@code clock} paces the log of failed handshakes. */
    public static InternalTls of(TlsIdentity identity, TlsProvider provider, Clock clock) {
        if (identity.key() == null || identity.trusted().isEmpty()) {
            throw new IllegalArgumentException("Mutual TLS needs a key, its certificate and trusted CA certificates");
        }
        return new InternalTls(identity, nettyProvider(provider), clock);
    }

    /**
     * The internal TLS the configuration asks for ({@code security.internal.tls.*}), or {@code null}
     * when {@code security.internal.tls.enabled} is false. Reads the PEM files: call at start-up.
     *
     * @throws IllegalConfigurationException naming the key that is missing or the file that is wrong
     */
    public static InternalTls fromConfiguration(Configuration configuration) {
        configuration.validate(List.of(SecurityOptions.INTERNAL_TLS_ENABLED, SecurityOptions.INTERNAL_TLS_KEY,
                SecurityOptions.INTERNAL_TLS_CERTIFICATE, SecurityOptions.INTERNAL_TLS_TRUSTED_CERTIFICATES,
                SecurityOptions.INTERNAL_TLS_PROVIDER));
        if (!configuration.get(SecurityOptions.INTERNAL_TLS_ENABLED)) {
            return null;
        }
        Path key = required(configuration, SecurityOptions.INTERNAL_TLS_KEY.key(),
                configuration.get(SecurityOptions.INTERNAL_TLS_KEY));
        Path certificate = required(configuration, SecurityOptions.INTERNAL_TLS_CERTIFICATE.key(),
                configuration.get(SecurityOptions.INTERNAL_TLS_CERTIFICATE));
        Path trusted = required(configuration, SecurityOptions.INTERNAL_TLS_TRUSTED_CERTIFICATES.key(),
                configuration.get(SecurityOptions.INTERNAL_TLS_TRUSTED_CERTIFICATES));
        TlsIdentity identity = TlsIdentity.load(key, SecurityOptions.INTERNAL_TLS_KEY.key(), certificate,
                SecurityOptions.INTERNAL_TLS_CERTIFICATE.key(), trusted, SecurityOptions.INTERNAL_TLS_TRUSTED_CERTIFICATES.key());
        InternalTls tls = of(identity, configuration.get(SecurityOptions.INTERNAL_TLS_PROVIDER));
        LOG.info("Internal connections use mutual TLS ({}): this process is {}, it trusts {} CA certificate(s)",
                tls.providerName(), identity.subject(), identity.trusted().size());
        return tls;
    }

    private static Path required(Configuration configuration, String key, String value) {
        if (value.isBlank()) {
            throw new IllegalConfigurationException(SecurityOptions.INTERNAL_TLS_ENABLED.key() + " is true but " + key
                    + " is not set; set it to a PEM file (docs/security.md), or turn internal TLS off");
        }
        return Path.of(value);
    }

    private static SslProvider nettyProvider(TlsProvider provider) {
        return switch (provider) {
            case JDK -> SslProvider.JDK;
            case OPENSSL -> {
                if (!OpenSsl.isAvailable()) {
                    throw new IllegalConfigurationException(SecurityOptions.INTERNAL_TLS_PROVIDER.key() + " is openssl,"
                            + " but OpenSSL (netty-tcnative) does not load here (" + OpenSsl.unavailabilityCause()
                            + "); set it to auto or jdk");
                }
                yield SslProvider.OPENSSL;
            }
            case AUTO -> OpenSsl.isAvailable() ? SslProvider.OPENSSL : SslProvider.JDK;
        };
    }

    /** Adds the server side of TLS first to {@code pipeline}; {@code server} names the port for logs ("RPC server 127.0.0.1:6123"). */
    public void addServerHandlers(ChannelPipeline pipeline, ByteBufAllocator allocator, String server) {
        SslHandler ssl = this.server.newHandler(allocator);
        pipeline.addFirst("tls-guard", new TlsHandshakeGuard(server, true, handshakes, refused,
                serverRefusals.computeIfAbsent(server, s -> new RefusalLog(clock, REFUSAL_LOG_INTERVAL))));
        pipeline.addFirst("tls", ssl);
    }

    /** Adds the client side of TLS first to {@code pipeline}, for a connection to {@code host:port}. */
    public void addClientHandlers(ChannelPipeline pipeline, ByteBufAllocator allocator, String host, int port) {
        SslHandler ssl = client.newHandler(allocator, host, port);
        pipeline.addFirst("tls-guard", new TlsHandshakeGuard(host + ":" + port, false, handshakes, refused,
                clientRefusals));
        pipeline.addFirst("tls", ssl);
    }

    /** "OpenSSL" or "JDK". */
    public String providerName() {
        return provider == SslProvider.JDK ? "JDK" : "OpenSSL";
    }

    public TlsIdentity identity() {
        return identity;
    }

    /** Handshakes completed so far, on both sides. */
    public long handshakesCompleted() {
        return handshakes.get();
    }

    /** Handshakes that failed so far, on both sides (a peer without a trusted certificate, or a plain-TCP one). */
    public long handshakesFailed() {
        return refused.get();
    }

    @Override
    public String toString() {
        return "InternalTls[" + providerName() + ", " + identity + "]";
    }
}
