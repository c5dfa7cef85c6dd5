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
                    + " set 0.0.0.0 (all interfaces) or a specific address to serve others, and then also set"
                    + " rest.auth.token.");

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
}
