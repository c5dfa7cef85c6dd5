package io.sluice.storage;

import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Opens the {@link BlobStore} for a configured location ({@code checkpoints.dir}).
 *
 * <p>Supported: {@code file:///absolute/path} and plain file system paths (local disk).
 * {@code s3://} is recognised but not available in this build yet. Stateless and thread-safe;
 * opening does no I/O (use {@code CheckpointStorage#checkWritable()} to probe the location).
 */
public final class BlobStores {
    private static final Pattern SCHEME = Pattern.compile("^([a-zA-Z][a-zA-Z0-9+.-]+):");
    private static final String SUPPORTED = "supported are file:///absolute/path and plain file system paths"
            + " (s3://bucket/prefix is planned)";

    private BlobStores() {}

    public static BlobStore open(String location) {
        if (location == null || location.isBlank()) {
            throw new IllegalArgumentException("No checkpoint storage location given; " + SUPPORTED);
        }
        String trimmed = location.trim();
        Matcher m = SCHEME.matcher(trimmed);
        if (!m.find()) {
            // No scheme (a one-letter "scheme" is a Windows drive): a plain path.
            return new LocalFileBlobStore(Paths.get(trimmed));
        }
        String scheme = m.group(1).toLowerCase(Locale.ROOT);
        switch (scheme) {
            case "file":
                return new LocalFileBlobStore(fileUriToPath(trimmed));
            case "s3":
                throw new IllegalArgumentException("S3 checkpoint storage is not available in this build yet: "
                        + trimmed + ". Use a file:/// location (for example a shared mount) for now.");
            default:
                throw new IllegalArgumentException("Unsupported checkpoint storage location '" + trimmed
                        + "' (scheme '" + scheme + "'); " + SUPPORTED);
        }
    }

    private static Path fileUriToPath(String location) {
        URI uri;
        try {
            uri = new URI(location);
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException("Checkpoint storage location '" + location
                    + "' is not a valid file URI (" + e.getMessage() + "); use file:///absolute/path", e);
        }
        if (uri.getAuthority() != null && !uri.getAuthority().isEmpty()) {
            throw new IllegalArgumentException("Checkpoint storage location '" + location + "' names host '"
                    + uri.getAuthority() + "'; a file location must be local: file:///absolute/path");
        }
        try {
            return Paths.get(uri);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("Checkpoint storage location '" + location
                    + "' is not a valid file URI (" + e.getMessage() + "); use file:///absolute/path", e);
        }
    }
}
