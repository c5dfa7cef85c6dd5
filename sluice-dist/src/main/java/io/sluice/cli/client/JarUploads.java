package io.sluice.cli.client;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.cli.common.ExitCodes;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.DigestInputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Optional;

/**
 * The cluster's copy of a local job jar for {@code sluice run}: a jar the cluster already stores with the same
 * bytes (the SHA-256 and size {@code GET /v1/jars} lists) is run again instead of being uploaded once more, so that
 * submitting one jar again and again does not leave a copy per run in the job manager's jar directory (uploaded
 * jars are kept until deleted, {@code rest.jars.delete-with-last-job}). Stateless; called on the command's thread.
 */
final class JarUploads {
    private JarUploads() {}

    /** The id of a jar the cluster stores with exactly the bytes of {@code jar}, if it lists one. */
    static Optional<String> findSame(RestClient client, Path jar) throws ClientException {
        String sha256 = sha256(jar);
        long size;
        try {
            size = Files.size(jar);
        } catch (IOException e) {
            throw new ClientException(ExitCodes.NOT_FOUND, "Could not read the jar file " + jar.toAbsolutePath()
                    + " (" + e.getMessage() + ")");
        }
        for (JsonNode stored : client.get("v1/jars").path("jars")) {
            if (sha256.equals(stored.path("sha256").asText()) && stored.path("sizeBytes").asLong(-1) == size
                    && stored.path("id").isTextual()) {
                return Optional.of(stored.path("id").asText());
            }
        }
        return Optional.empty();
    }

    /** The SHA-256 of the file's bytes, in lower-case hex (as {@code GET /v1/jars} gives it). */
    static String sha256(Path jar) throws ClientException {
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            try (InputStream in = new DigestInputStream(Files.newInputStream(jar), sha)) {
                in.transferTo(java.io.OutputStream.nullOutputStream());
            }
            return HexFormat.of().formatHex(sha.digest());
        } catch (IOException e) {
            throw new ClientException(ExitCodes.NOT_FOUND, "Could not read the jar file " + jar.toAbsolutePath()
                    + " (" + e.getMessage() + ")");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("Every Java runtime has SHA-256", e);
        }
    }
}
