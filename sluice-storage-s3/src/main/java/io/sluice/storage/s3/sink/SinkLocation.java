package io.sluice.storage.s3.sink;

import java.util.regex.Pattern;

/** Parses the {@code s3://bucket/prefix} location of an S3 file sink. Stateless; any thread. */
final class SinkLocation {
    private static final Pattern BUCKET = Pattern.compile("[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]");

    private SinkLocation() {}

    /** {@code [bucket, prefix without leading or trailing '/']}; IllegalArgumentException saying what is wrong. */
    static String[] parse(String location) {
        if (location == null || !location.startsWith("s3://")) {
            throw new IllegalArgumentException("S3ExactlyOnceFileSink: location '" + location
                    + "' must look like s3://bucket/prefix");
        }
        String rest = location.substring(5);
        int slash = rest.indexOf('/');
        String bucket = slash < 0 ? rest : rest.substring(0, slash);
        String prefix = slash < 0 ? "" : rest.substring(slash + 1);
        while (prefix.endsWith("/")) {
            prefix = prefix.substring(0, prefix.length() - 1);
        }
        if (!BUCKET.matcher(bucket).matches()) {
            throw new IllegalArgumentException("S3ExactlyOnceFileSink: location '" + location + "' has no valid bucket"
                    + " name ('" + bucket + "': 3 to 63 lower-case letters, digits, dots and hyphens)");
        }
        for (String segment : prefix.isEmpty() ? new String[0] : prefix.split("/", -1)) {
            if (segment.isEmpty() || segment.equals(".") || segment.equals("..")) {
                throw new IllegalArgumentException("S3ExactlyOnceFileSink: location '" + location
                        + "' must not contain empty, '.' or '..' segments in its prefix");
            }
        }
        return new String[] {bucket, prefix};
    }
}
