package io.sluice.rest;

import io.sluice.config.ConfigOption;
import io.sluice.config.ConfigOptions;

/**
 * Options of the REST server ({@code rest.*}). Constants only; thread-safe. Read by
 * {@link RestServerConfig#fromConfiguration}.
 */
public final class RestOptions {
    private RestOptions() {}

    private static final long MIB = 1024 * 1024;

    public static final ConfigOption<String> ADDRESS = ConfigOptions.key("rest.address")
            .stringType()
            .defaultValue("127.0.0.1")
            .withConstraint(s -> !s.isBlank(), "a host name or IP address")
            .withDescription("Address the REST API and dashboard listen on. The default serves this machine only;"
                    + " set 0.0.0.0 (all interfaces) or a specific address to serve others. Off loopback a token"
                    + " (rest.auth.token-file or rest.auth.token) is required, or the server does not start (see"
                    + " rest.auth.allow-unauthenticated).");

    public static final ConfigOption<Integer> PORT = ConfigOptions.key("rest.port")
            .intType()
            .defaultValue(8081)
            .withConstraint(p -> p >= 0 && p <= 65535, "between 0 and 65535")
            .withDescription("TCP port of the REST API and dashboard; 0 picks a free port.");

    public static final ConfigOption<String> AUTH_TOKEN = ConfigOptions.key("rest.auth.token")
            .stringType()
            .defaultValue("")
            .withDescription("Bearer token every request must carry (Authorization: Bearer <token>). Empty: no"
                    + " authentication. Prefer rest.auth.token-file, which keeps the token out of the configuration.");

    public static final ConfigOption<String> AUTH_TOKEN_FILE = ConfigOptions.key("rest.auth.token-file")
            .stringType()
            .defaultValue("")
            .withDescription("File holding the bearer token (its first line, surrounding whitespace removed); read"
                    + " once at start. Empty: use rest.auth.token. Setting both is an error.");

    public static final ConfigOption<Boolean> ALLOW_UNAUTHENTICATED = ConfigOptions.key("rest.auth.allow-unauthenticated")
            .booleanType()
            .defaultValue(false)
            .withDescription("Serve the REST API without a token on an address other machines can reach"
                    + " (rest.address not loopback). Then everyone who can reach that address can submit jobs (run any"
                    + " code as the Sluice user on every task manager), cancel them, and read every job's status,"
                    + " exceptions and metrics. Only for a network that admits nothing else, or behind a proxy that"
                    + " authenticates. false: such a server refuses to start without a token.");

    public static final ConfigOption<String> ALLOWED_HOSTS = ConfigOptions.key("rest.allowed-hosts")
            .stringType()
            .defaultValue("")
            .withDescription("Comma-separated extra host names a server on loopback answers to. On loopback, a"
                    + " request whose Host or Origin header names another host than localhost, 127.0.0.1 or [::1]"
                    + " is refused with 403, so that a web page cannot reach the API through a DNS name rebound to"
                    + " 127.0.0.1 (DNS rebinding). Add the names this machine is reached under (for example through"
                    + " an SSH tunnel or a local proxy).");

    public static final ConfigOption<Boolean> TLS_ENABLED = ConfigOptions.key("rest.tls.enabled")
            .booleanType()
            .defaultValue(false)
            .withDescription("Serve the REST API and dashboard over HTTPS with rest.tls.key and"
                    + " rest.tls.certificate (no plain HTTP then). Clients check the certificate: sluice commands"
                    + " take --ca-file for a private CA.");

    public static final ConfigOption<String> TLS_KEY = ConfigOptions.key("rest.tls.key")
            .stringType()
            .defaultValue("")
            .withDescription("PEM file of the HTTPS server's private key (PKCS#8, '-----BEGIN PRIVATE KEY-----',"
                    + " unencrypted). Required when rest.tls.enabled is true.");

    public static final ConfigOption<String> TLS_CERTIFICATE = ConfigOptions.key("rest.tls.certificate")
            .stringType()
            .defaultValue("")
            .withDescription("PEM file of the HTTPS server's certificate chain, its own certificate first; it"
                    + " should name the host clients use (subject alternative names). Required when rest.tls.enabled"
                    + " is true.");

    public static final ConfigOption<Long> MAX_REQUEST_SIZE = ConfigOptions.key("rest.max-request-size")
            .longType()
            .defaultValue(MIB)
            .withConstraint(n -> n >= 1024, "at least 1024")
            .withDescription("Largest request body in bytes accepted by any endpoint except jar upload; larger"
                    + " requests get 413.");

    public static final ConfigOption<Long> MAX_UPLOAD_SIZE = ConfigOptions.key("rest.max-upload-size")
            .longType()
            .defaultValue(256 * MIB)
            .withConstraint(n -> n >= 1024, "at least 1024")
            .withDescription("Largest jar upload in bytes (the whole multipart request); larger uploads get 413.");

    public static final ConfigOption<Boolean> JARS_DELETE_WITH_LAST_JOB = ConfigOptions.key("rest.jars.delete-with-last-job")
            .booleanType()
            .defaultValue(false)
            .withDescription("Whether an uploaded jar (POST /v1/jars) is deleted once every job run from it has ended"
                    + " (finished, failed or cancelled). Off by default, so that a jar can be run again, for example"
                    + " with checkpoints.restore-from after a cancel; delete jars by hand with DELETE /v1/jars/{jarId}"
                    + " or sluice jars delete. A jar never run is kept either way.");
}
