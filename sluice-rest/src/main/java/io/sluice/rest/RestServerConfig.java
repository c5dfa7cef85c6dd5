package io.sluice.rest;

import io.sluice.config.Configuration;
import io.sluice.config.IllegalConfigurationException;
import io.sluice.security.tls.TlsIdentity;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

/**
 * How a {@link io.sluice.rest.server.RestServer} listens and what it accepts. Immutable. A server on
 * an address other machines can reach must have a token unless {@code allowUnauthenticated} says
 * otherwise: such a configuration cannot be made ({@link IllegalConfigurationException} naming the
 * address and the two ways out).
 *
 * @param bindAddress          address to listen on; {@code 127.0.0.1} by default (this machine only)
 * @param port                 TCP port; 0 picks a free one (tests)
 * @param authToken            bearer token required on every protected route, or {@code null} for none
 * @param maxRequestBytes      largest request body of any endpoint but jar upload
 * @param maxUploadBytes       largest jar upload (the whole multipart request)
 * @param allowUnauthenticated serve without a token off loopback ({@code rest.auth.allow-unauthenticated})
 * @param allowedHosts         extra host names a server on loopback answers to ({@code rest.allowed-hosts})
 * @param tls                  the HTTPS key and certificate chain, or {@code null} for plain HTTP
 */
public record RestServerConfig(String bindAddress, int port, String authToken, long maxRequestBytes,
                               long maxUploadBytes, boolean allowUnauthenticated, List<String> allowedHosts,
                               TlsIdentity tls) {

    /** A server on {@code bindAddress} without TLS, unauthenticated use off loopback refused, no extra host names. */
    public RestServerConfig(String bindAddress, int port, String authToken, long maxRequestBytes, long maxUploadBytes) {
        this(bindAddress, port, authToken, maxRequestBytes, maxUploadBytes, false, List.of(), null);
    }

    public RestServerConfig {
        if (bindAddress == null || bindAddress.isBlank()) {
            throw new IllegalArgumentException("The REST bind address must not be empty");
        }
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("The REST port must be between 0 and 65535, not " + port);
        }
        if (authToken != null && authToken.isBlank()) {
            authToken = null;
        }
        if (maxRequestBytes < 1 || maxUploadBytes < 1) {
            throw new IllegalArgumentException("REST size limits must be positive, not " + maxRequestBytes + " / " + maxUploadBytes);
        }
        allowedHosts = List.copyOf(allowedHosts);
        if (authToken == null && !allowUnauthenticated && !LoopbackAddresses.isLoopback(bindAddress)) {
            throw new IllegalConfigurationException("Refusing to serve the REST API on " + bindAddress + ":" + port
                    + " without a token: that address is reachable from other machines, and anyone who reaches it"
                    + " could submit jobs (run any code on the cluster), cancel them and read their data. Set a token"
                    + " (" + RestOptions.AUTH_TOKEN_FILE.key() + " or " + RestOptions.AUTH_TOKEN.key() + "; clients"
                    + " then pass --token-file or --token), or set " + RestOptions.ALLOW_UNAUTHENTICATED.key()
                    + ": true to let everyone who reaches " + bindAddress + " do all of that");
        }
    }

    /** Whether {@link #bindAddress()} serves this machine only (a loopback address or {@code localhost}). */
    public boolean onLoopback() {
        return LoopbackAddresses.isLoopback(bindAddress);
    }

    /** {@code https} with TLS, else {@code http}. */
    public String scheme() {
        return tls == null ? "http" : "https";
    }

    /** Every option's default: 127.0.0.1:8081, no token. */
    public static RestServerConfig defaults() {
        return fromConfiguration(new Configuration());
    }

    /**
     * Reads the {@link RestOptions} from {@code configuration}; reads the token file, if one is set,
     * on the calling thread (call it at start-up, not on a main thread).
     */
    public static RestServerConfig fromConfiguration(Configuration configuration) {
        configuration.validate(List.of(RestOptions.ADDRESS, RestOptions.PORT, RestOptions.AUTH_TOKEN,
                RestOptions.AUTH_TOKEN_FILE, RestOptions.MAX_REQUEST_SIZE, RestOptions.MAX_UPLOAD_SIZE,
                RestOptions.ALLOW_UNAUTHENTICATED, RestOptions.ALLOWED_HOSTS, RestOptions.TLS_ENABLED,
                RestOptions.TLS_KEY, RestOptions.TLS_CERTIFICATE));
        String token = configuration.get(RestOptions.AUTH_TOKEN);
        String tokenFile = configuration.get(RestOptions.AUTH_TOKEN_FILE);
        if (!token.isEmpty() && !tokenFile.isEmpty()) {
            throw new IllegalConfigurationException("Set either " + RestOptions.AUTH_TOKEN.key() + " or "
                    + RestOptions.AUTH_TOKEN_FILE.key() + ", not both");
        }
        if (!tokenFile.isEmpty()) {
            token = readTokenFile(Path.of(tokenFile));
        }
        List<String> hosts = Arrays.stream(configuration.get(RestOptions.ALLOWED_HOSTS).split(","))
                .map(String::strip).filter(h -> !h.isEmpty()).toList();
        return new RestServerConfig(configuration.get(RestOptions.ADDRESS), configuration.get(RestOptions.PORT),
                token.isEmpty() ? null : token, configuration.get(RestOptions.MAX_REQUEST_SIZE),
                configuration.get(RestOptions.MAX_UPLOAD_SIZE), configuration.get(RestOptions.ALLOW_UNAUTHENTICATED),
                hosts, tls(configuration));
    }

    /** The HTTPS key and chain of {@code rest.tls.*}, or {@code null} when it is off. Reads the files. */
    private static TlsIdentity tls(Configuration configuration) {
        if (!configuration.get(RestOptions.TLS_ENABLED)) {
            return null;
        }
        for (var option : List.of(RestOptions.TLS_KEY, RestOptions.TLS_CERTIFICATE)) {
            if (configuration.get(option).isBlank()) {
                throw new IllegalConfigurationException(RestOptions.TLS_ENABLED.key() + " is true but " + option.key()
                        + " is not set; set it to a PEM file (docs/security.md), or turn REST TLS off");
            }
        }
        return TlsIdentity.load(Path.of(configuration.get(RestOptions.TLS_KEY)), RestOptions.TLS_KEY.key(),
                Path.of(configuration.get(RestOptions.TLS_CERTIFICATE)), RestOptions.TLS_CERTIFICATE.key(), null, null);
    }

    private static String readTokenFile(Path file) {
        try {
            List<String> lines = Files.readAllLines(file);
            String token = lines.isEmpty() ? "" : lines.get(0).strip();
            if (token.isEmpty()) {
                throw new IllegalConfigurationException("The token file " + file.toAbsolutePath() + " ("
                        + RestOptions.AUTH_TOKEN_FILE.key() + ") is empty; write the token on its first line");
            }
            return token;
        } catch (IOException e) {
            throw new IllegalConfigurationException("Cannot read the token file " + file.toAbsolutePath() + " ("
                    + RestOptions.AUTH_TOKEN_FILE.key() + "): " + e);
        }
    }

    public RestServerConfig withPort(int newPort) {
        return new RestServerConfig(bindAddress, newPort, authToken, maxRequestBytes, maxUploadBytes, allowUnauthenticated,
                allowedHosts, tls);
    }

    public RestServerConfig withAuthToken(String token) {
        return new RestServerConfig(bindAddress, port, token, maxRequestBytes, maxUploadBytes, allowUnauthenticated,
                allowedHosts, tls);
    }

    public RestServerConfig withLimits(long requestBytes, long uploadBytes) {
        return new RestServerConfig(bindAddress, port, authToken, requestBytes, uploadBytes, allowUnauthenticated,
                allowedHosts, tls);
    }

    public RestServerConfig withTls(TlsIdentity identity) {
        return new RestServerConfig(bindAddress, port, authToken, maxRequestBytes, maxUploadBytes, allowUnauthenticated,
                allowedHosts, identity);
    }

    /** Never prints the token. */
    @Override
    public String toString() {
        return "RestServerConfig[" + scheme() + "://" + bindAddress + ":" + port + ", token "
                + (authToken == null ? (allowUnauthenticated ? "none (allowed)" : "none") : "set")
                + ", maxRequestBytes=" + maxRequestBytes + ", maxUploadBytes=" + maxUploadBytes
                + (allowedHosts.isEmpty() ? "" : ", allowedHosts=" + allowedHosts) + "]";
    }
}
