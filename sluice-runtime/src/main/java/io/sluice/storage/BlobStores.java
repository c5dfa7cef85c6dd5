package io.sluice.storage;

import io.sluice.config.Configuration;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.ServiceLoader;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Opens the {@link BlobStore} for a configured location ({@code checkpoints.dir}).
 *
 * <p>Built in: {@code file:///absolute/path} and plain file system paths (local disk). Other schemes
 * come from {@link BlobStoreFactory} implementations found with {@link ServiceLoader} on the class
 * path: {@code s3://bucket/prefix} needs the module {@code sluice-storage-s3}. The
 * {@link Configuration} handed to {@link #open(String, Configuration)} reaches the factory (for
 * example the {@code s3.*} options). Stateless and thread-safe; opening does no I/O (use
 * {@code CheckpointStorage#checkWritable()} to probe the location).
 */
public final class BlobStores {
    private static final Pattern SCHEME = Pattern.compile("^([a-zA-Z][a-zA-Z0-9+.-]+):");
    private static final String SUPPORTED = "supported are file:///absolute/path, plain file system paths"
            + " and s3://bucket/prefix (with the module sluice-storage-s3 on the class path)";

    private BlobStores() {}

    /** Opens {@code location} with an empty configuration (every factory's defaults). */
    public static BlobStore open(String location) {
        return open(location, new Configuration());
    }

    /** Opens {@code location}; {@code configuration} is passed to the factory of its scheme. */
    public static BlobStore open(String location, Configuration configuration) {
        return open(location, configuration, StorageException.CHECKPOINT_STORAGE);
    }

    /**
     * Opens {@code location} for the given role, which the store's error messages name (see
     * {@link BlobStore#role()}), for example {@link StorageException#HA_STORAGE} for
     * {@code high-availability.storage-dir}.
     */
    public static BlobStore open(String location, Configuration configuration, String role) {
        java.util.Objects.requireNonNull(role, "role");
        if (location == null || location.isBlank()) {
            throw new IllegalArgumentException("No " + inText(role) + " location given; " + SUPPORTED);
        }
        String trimmed = location.trim();
        Matcher m = SCHEME.matcher(trimmed);
        if (!m.find()) {
            // No scheme (a one-letter "scheme" is a Windows drive): a plain path.
            return new LocalFileBlobStore(Paths.get(trimmed), role);
        }
        String scheme = m.group(1).toLowerCase(Locale.ROOT);
        if (scheme.equals("file")) {
            return new LocalFileBlobStore(fileUriToPath(trimmed, role), role);
        }
        for (BlobStoreFactory factory : factories()) {
            if (factory.supports(scheme)) {
                return factory.open(trimmed, configuration == null ? new Configuration() : configuration, role);
            }
        }
        if (scheme.equals("s3")) {
            throw new IllegalArgumentException("S3 " + inText(role) + " is not available: " + trimmed
                    + " needs the module sluice-storage-s3 (artifact io.sluice:sluice-storage-s3) on the class path."
                    + " Add it, or use a file:/// location (for example a shared mount).");
        }
        throw new IllegalArgumentException("Unsupported " + inText(role) + " location '" + trimmed
                + "' (scheme '" + scheme + "'); " + SUPPORTED);
    }

    private static List<BlobStoreFactory> factories() {
        ClassLoader loader = Thread.currentThread().getContextClassLoader();
        if (loader == null) {
            loader = BlobStores.class.getClassLoader();
        }
        List<BlobStoreFactory> out = new ArrayList<>();
        ServiceLoader.load(BlobStoreFactory.class, loader).forEach(out::add);
        if (out.isEmpty() && loader != BlobStores.class.getClassLoader()) {
            ServiceLoader.load(BlobStoreFactory.class, BlobStores.class.getClassLoader()).forEach(out::add);
        }
        return out;
    }

    /** {@code role} inside a sentence: "checkpoint storage", "HA storage". */
    private static String inText(String role) {
        return role.length() > 1 && Character.isLowerCase(role.charAt(1))
                ? Character.toLowerCase(role.charAt(0)) + role.substring(1) : role;
    }

    private static Path fileUriToPath(String location, String role) {
        URI uri;
        try {
            uri = new URI(location);
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException(role + " location '" + location
                    + "' is not a valid file URI (" + e.getMessage() + "); use file:///absolute/path", e);
        }
        if (uri.getAuthority() != null && !uri.getAuthority().isEmpty()) {
            throw new IllegalArgumentException(role + " location '" + location + "' names host '"
                    + uri.getAuthority() + "'; a file location must be local: file:///absolute/path");
        }
        try {
            return Paths.get(uri);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(role + " location '" + location
                    + "' is not a valid file URI (" + e.getMessage() + "); use file:///absolute/path", e);
        }
    }
}
