package io.sluice.rest;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * Checks the {@code Authorization: Bearer <token>} header against the configured token in constant
 * time: both are hashed (SHA-256) and the digests compared with {@link MessageDigest#isEqual}, so
 * neither the content nor the length of the token leaks through timing. Immutable; any thread.
 */
public final class BearerTokenCheck {
    private static final String PREFIX = "Bearer ";

    private final byte[] expectedDigest;

    /** @param token the required token, or {@code null} to accept every request */
    public BearerTokenCheck(String token) {
        this.expectedDigest = token == null ? null : sha256(token);
    }

    boolean enabled() {
        return expectedDigest != null;
    }

    /** Throws a 401 {@link RestException} unless the header carries the token (or no token is required). */
    void check(String authorizationHeader) {
        if (expectedDigest == null) {
            return;
        }
        if (authorizationHeader == null || authorizationHeader.isBlank()) {
            throw new RestException(401, "This server requires a bearer token: send the header 'Authorization: Bearer"
                    + " <token>' with the token set in rest.auth.token or rest.auth.token-file");
        }
        if (!authorizationHeader.regionMatches(true, 0, PREFIX, 0, PREFIX.length())) {
            throw new RestException(401, "The Authorization header is not a bearer token: send 'Authorization: Bearer <token>'");
        }
        byte[] given = sha256(authorizationHeader.substring(PREFIX.length()).strip());
        if (!MessageDigest.isEqual(given, expectedDigest)) {
            throw new RestException(401, "Wrong bearer token: use the token set in rest.auth.token or rest.auth.token-file");
        }
    }

    private static byte[] sha256(String s) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every Java runtime", e);
        }
    }
}
