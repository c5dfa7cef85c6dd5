package io.sluice.config;

/**
 * Options of the mutual TLS between the processes of a cluster ({@code security.internal.tls.*}):
 * the RPC connections (task managers to job managers and back, clients to the dispatcher) and the
 * data connections between task managers. The REST API has its own TLS options ({@code rest.tls.*}).
 * See {@code docs/security.md}. Constants only; thread-safe.
 */
public final class SecurityOptions {
    private SecurityOptions() {}

    /** Which TLS implementation the internal connections use. */
    public enum TlsProvider {
        /** OpenSSL (BoringSSL, from netty-tcnative) when it loads on this platform, else the JDK's. */
        AUTO,
        /** The JDK's SSLEngine. */
        JDK,
        /** OpenSSL (BoringSSL, from netty-tcnative); start-up fails when it does not load. */
        OPENSSL
    }

    public static final ConfigOption<Boolean> INTERNAL_TLS_ENABLED = ConfigOptions.key("security.internal.tls.enabled")
            .booleanType()
            .defaultValue(false)
            .withDescription("Mutual TLS on every RPC connection and every data connection between task managers:"
                    + " each side presents the certificate of security.internal.tls.certificate and accepts only a"
                    + " peer whose certificate is signed by one of security.internal.tls.trusted-certificates, so a"
                    + " process without the cluster's certificate can neither call an endpoint nor read or send data."
                    + " Every process of the cluster (and every client of its RPC port) must set the same. false:"
                    + " plain TCP, which anyone who can reach the ports can use.");

    public static final ConfigOption<String> INTERNAL_TLS_KEY = ConfigOptions.key("security.internal.tls.key")
            .stringType()
            .defaultValue("")
            .withDescription("PEM file of this process's private key (PKCS#8, '-----BEGIN PRIVATE KEY-----',"
                    + " unencrypted; RSA or EC). Keep it readable by the Sluice user only. Required when"
                    + " security.internal.tls.enabled is true.");

    public static final ConfigOption<String> INTERNAL_TLS_CERTIFICATE = ConfigOptions.key("security.internal.tls.certificate")
            .stringType()
            .defaultValue("")
            .withDescription("PEM file of this process's certificate chain: its own certificate first (for the key"
                    + " of security.internal.tls.key), then any intermediate CA certificates. Required when"
                    + " security.internal.tls.enabled is true.");

    public static final ConfigOption<String> INTERNAL_TLS_TRUSTED_CERTIFICATES =
            ConfigOptions.key("security.internal.tls.trusted-certificates")
                    .stringType()
                    .defaultValue("")
                    .withDescription("PEM file of the CA certificate(s) a peer's certificate must be signed by. Use a CA"
                            + " of this cluster only: every certificate it signed is let in. Host names are not"
                            + " checked. Required when security.internal.tls.enabled is true.");

    public static final ConfigOption<TlsProvider> INTERNAL_TLS_PROVIDER = ConfigOptions.key("security.internal.tls.provider")
            .enumType(TlsProvider.class)
            .defaultValue(TlsProvider.AUTO)
            .withDescription("The TLS implementation of the internal connections: openssl (BoringSSL from"
                    + " netty-tcnative, shipped for Linux x86-64; faster), jdk (the JDK's SSLEngine), or auto"
                    + " (openssl where it loads, else jdk).");
}
