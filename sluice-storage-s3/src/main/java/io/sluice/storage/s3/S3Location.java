package io.sluice.storage.s3;

import java.util.regex.Pattern;

/**
 * An {@code s3://bucket/prefix} location: its bucket, its key prefix, and the object key of a blob path
 * (checked to be a relative, '/'-separated path without empty, '.' or '..' segments).
 *
 * <p>Threading: immutable, any thread.
 */
final class S3Location {
    private static final Pattern BUCKET = Pattern.compile("[a-zA-Z0-9][a-zA-Z0-9._-]{0,254}");

    private final String bucket;
    private final String keyPrefix; // "" or "some/prefix/" (with a trailing slash)
    private final String location;

    /** @throws IllegalArgumentException for a malformed location */
    S3Location(String location) {
        String[] parsed = parse(location);
        this.bucket = parsed[0];
        this.keyPrefix = parsed[1].isEmpty() ? "" : parsed[1] + "/";
        this.location = "s3://" + bucket + (parsed[1].isEmpty() ? "" : "/" + parsed[1]);
    }

    /** {@code [bucket, prefix without leading or trailing '/']} of an {@code s3://} location. */
    static String[] parse(String location) {
        if (location == null || !location.regionMatches(true, 0, "s3://", 0, 5)) {
            throw new IllegalArgumentException("S3 location '" + location + "' must look like s3://bucket/prefix");
        }
        String rest = location.substring(5);
        int slash = rest.indexOf('/');
        String bucket = slash < 0 ? rest : rest.substring(0, slash);
        String prefix = slash < 0 ? "" : rest.substring(slash + 1);
        while (prefix.endsWith("/")) {
            prefix = prefix.substring(0, prefix.length() - 1);
        }
        if (!BUCKET.matcher(bucket).matches()) {
            throw new IllegalArgumentException("S3 location '" + location + "' has no valid bucket name ('" + bucket
                    + "'); use s3://bucket/prefix");
        }
        if (prefix.startsWith("/") || prefix.contains("//") || prefix.contains("\\")) {
            throw new IllegalArgumentException("S3 location '" + location + "' has an invalid prefix '" + prefix
                    + "'; use s3://bucket/some/prefix");
        }
        for (String segment : prefix.split("/")) {
            if (segment.equals("..") || segment.equals(".")) {
                throw new IllegalArgumentException("S3 location '" + location + "' must not contain '.' or '..' segments");
            }
        }
        return new String[] {bucket, prefix};
    }

    String bucket() {
        return bucket;
    }

    /** The key prefix of every blob: {@code ""} or {@code "prefix/"}. */
    String keyPrefix() {
        return keyPrefix;
    }

    /** The normalised location, {@code s3://bucket} or {@code s3://bucket/prefix}. */
    @Override
    public String toString() {
        return location;
    }

    /** The object key of blob {@code path}: the key prefix, then the path. */
    String key(String path) {
        if (path == null || path.isEmpty() || path.startsWith("/") || path.contains("\\")) {
            throw new IllegalArgumentException("Blob path must be a non-empty relative '/'-separated key, not '"
                    + path + "' (store " + location + ")");
        }
        for (String segment : path.split("/", -1)) {
            if (segment.equals("..") || segment.equals(".") || segment.isEmpty()) {
                throw new IllegalArgumentException("Blob path '" + path + "' must not contain empty, '.' or '..'"
                        + " segments (store " + location + ")");
            }
        }
        return keyPrefix + path;
    }
}
