package io.sluice.rest;

import io.sluice.config.Configuration;
import io.sluice.config.IllegalConfigurationException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * How a {@link io.sluice.rest.server.RestServer} listens and what it accepts. Immutable.
 *
 * @param bindAddress     address to listen on; {@code 127.0.0.1} by default (this machine only)
 * @param port            TCP port; 0 picks a free one (tests)
 * @param authToken       bearer token required on every protected route, or {@code null} for none
 * @param maxRequestBytes largest request body of any endpoint but jar upload
 * @param maxUploadBytes  largest jar upload (the whole multipart request)
 */
public record RestServerConfig(String bindAddress, int port, String authToken, long maxRequestBytes,
                               long maxUploadBytes) {

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
                RestOptions.AUTH_TOKEN_FILE, RestOptions.MAX_REQUEST_SIZE, RestOptions.MAX_UPLOAD_SIZE));
        String token = configuration.get(RestOptions.AUTH_TOKEN);
        String tokenFile = configuration.get(RestOptions.AUTH_TOKEN_FILE);
        if (!token.isEmpty() && !tokenFile.isEmpty()) {
            throw new IllegalConfigurationException("Set either " + RestOptions.AUTH_TOKEN.key() + " or "
                    + RestOptions.AUTH_TOKEN_FILE.key() + ", not both");
        }
        if (!tokenFile.isEmpty()) {
            token = readTokenFile(Path.of(tokenFile));
        }
        return new RestServerConfig(configuration.get(RestOptions.ADDRESS), configuration.get(RestOptions.PORT),
                token.isEmpty() ? null : token, configuration.get(RestOptions.MAX_REQUEST_SIZE),
                configuration.get(RestOptions.MAX_UPLOAD_SIZE));
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
        return new RestServerConfig(bindAddress, newPort, authToken, maxRequestBytes, maxUploadBytes);
    }

    public RestServerConfig withAuthToken(String token) {
        return new RestServerConfig(bindAddress, port, token, maxRequestBytes, maxUploadBytes);
    }

    public RestServerConfig withLimits(long requestBytes, long uploadBytes) {
        return new RestServerConfig(bindAddress, port, authToken, requestBytes, uploadBytes);
    }

    /** Never prints the token. */
    @Override
    public String toString() {
        return "RestServerConfig[" + bindAddress + ":" + port + ", token " + (authToken == null ? "none" : "set")
                + ", maxRequestBytes=" + maxRequestBytes + ", maxUploadBytes=" + maxUploadBytes + "]";
    }
}
