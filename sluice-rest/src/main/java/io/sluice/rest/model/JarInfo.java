package io.sluice.rest.model;

/**
 * A stored jar.
 *
 * @param id               generated, 32 lowercase hex digits; the only name the jar is stored and found under
 * @param name             the file name it was uploaded with, for display only
 * @param sha256           hex SHA-256 of the content
 * @param uploadedAtMillis wall-clock time of the upload
 */
public record JarInfo(String id, String name, long sizeBytes, String sha256, long uploadedAtMillis) {
}
