package io.sluice.jar;

/**
 * An uploaded jar in the {@link JarStore}.
 *
 * @param id               generated id (a UUID); the only name the jar is stored and found under
 * @param name             the file name the client gave, for display only
 * @param sizeBytes        size of the jar
 * @param sha256           hex SHA-256 of its bytes
 * @param uploadedAtMillis when it was stored (epoch millis)
 */
public record StoredJar(String id, String name, long sizeBytes, String sha256, long uploadedAtMillis) {
}
