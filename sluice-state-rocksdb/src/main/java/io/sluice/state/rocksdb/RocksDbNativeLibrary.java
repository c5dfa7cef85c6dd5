package io.sluice.state.rocksdb;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.DigestInputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import org.rocksdb.RocksDB;
import org.rocksdb.util.Environment;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Loads RocksDB's native library once per process from one file per library build, instead of from a new temporary
 * file per process.
 *
 * <p>RocksJava's own loader copies the library (15 MB) out of its jar to a new {@code librocksdbjni<random>.so} in
 * {@code java.io.tmpdir} at every process start and deletes it only when the JVM exits normally: every task manager
 * that is SIGKILLed or OOM-killed leaves one behind, so a crash loop fills the disk (this machine's {@code /tmp} held
 * 303 of them, 4.4 GB, from the test suite's SIGKILLs). Here the library goes to
 * {@code <java.io.tmpdir>/sluice-rocksdb-native-<user>/<sha-256 of the library>/librocksdbjni-<platform>.so}, written once
 * (to a temporary file in the same directory, then renamed, so no process ever loads a half-written one) and loaded
 * by every later process of that user; a new RocksDB version gets a new directory. The directories are the user's
 * alone ({@code rwx------}, checked before loading), since a library there is code this process runs: if the
 * directory belongs to someone else or others may write to it, or it cannot be written, the library is loaded as
 * RocksJava loads it, with a warning saying why.
 *
 * <p>Threading: {@link #load} is thread-safe and idempotent (serialized on the class).
 */
final class RocksDbNativeLibrary {
    private static final Logger LOG = LoggerFactory.getLogger(RocksDbNativeLibrary.class);
    private static final Set<PosixFilePermission> OWNER_ONLY = PosixFilePermissions.fromString("rwx------");
    private static boolean loaded;

    private RocksDbNativeLibrary() {}

    /** Loads the library from its shared file in {@code java.io.tmpdir}, made first if missing. */
    static synchronized void load() {
        if (loaded) {
            return;
        }
        Path root = Path.of(System.getProperty("java.io.tmpdir"), "sluice-rocksdb-native-" + System.getProperty("user.name"));
        Path directory = null;
        try {
            directory = extracted(root);
        } catch (IOException | RuntimeException e) {
            LOG.warn("RocksDB's native library is loaded as RocksJava loads it (a new copy in {} that a killed process"
                    + " leaves behind), not from {}: {}", System.getProperty("java.io.tmpdir"), root, e.toString());
        }
        if (directory != null) {
            try {
                RocksDB.loadLibrary(List.of(directory.toString()));
                loaded = true;
                return;
            } catch (UnsatisfiedLinkError e) {
                LOG.warn("RocksDB's native library in {} could not be loaded ({}); it is loaded as RocksJava loads it (a"
                        + " new copy in {} that a killed process leaves behind)", directory, e.getMessage(),
                        System.getProperty("java.io.tmpdir"));
            }
        }
        RocksDB.loadLibrary();
        loaded = true;
    }

    /** The directory that holds the library of this RocksJava, written there if it was not. */
    static Path extracted(Path root) throws IOException {
        String resource = "/" + Environment.getJniLibraryFileName("rocksdb");
        // The name RocksDB.loadLibrary(paths) looks for in each path (it asks for the file name of "rocksdbjni",
        // which is not the name of the resource in RocksJava's jar).
        String fileName = libraryFileName();
        String digest;
        try (InputStream in = open(resource)) {
            MessageDigest sha = sha256();
            try (DigestInputStream digesting = new DigestInputStream(in, sha)) {
                digesting.transferTo(OutputStream.nullOutputStream());
            }
            digest = HexFormat.of().formatHex(sha.digest(), 0, 16);
        }
        ownerOnlyDirectory(root);
        Path directory = root.resolve(digest);
        ownerOnlyDirectory(directory);
        Path library = directory.resolve(fileName);
        if (!Files.isRegularFile(library, LinkOption.NOFOLLOW_LINKS)) {
            Path partial = Files.createTempFile(directory, fileName, ".partial");
            try {
                try (InputStream in = open(resource)) {
                    Files.copy(in, partial, StandardCopyOption.REPLACE_EXISTING);
                }
                // Atomic: a process that finds the library finds all of it; a second writer replaces it with the same bytes.
                Files.move(partial, library, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } finally {
                Files.deleteIfExists(partial);
            }
        }
        return directory;
    }

    /** Makes {@code dir} this user's alone, or refuses one that belongs to someone else or that others may change. */
    private static void ownerOnlyDirectory(Path dir) throws IOException {
        try {
            Files.createDirectory(dir, PosixFilePermissions.asFileAttribute(OWNER_ONLY));
        } catch (FileAlreadyExistsException e) {
            // checked below
        }
        if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
            throw new IOException(dir + " is not a directory");
        }
        String owner = Files.getOwner(dir, LinkOption.NOFOLLOW_LINKS).getName();
        if (!owner.equals(System.getProperty("user.name"))) {
            throw new IOException(dir + " belongs to " + owner + ", not to " + System.getProperty("user.name"));
        }
        Set<PosixFilePermission> permissions = Files.getPosixFilePermissions(dir, LinkOption.NOFOLLOW_LINKS);
        if (!OWNER_ONLY.containsAll(permissions)) {
            throw new IOException(dir + " is open to others (" + PosixFilePermissions.toString(permissions)
                    + "); it must be rwx------");
        }
    }

    /** The library's file name in the directory {@link #extracted} returns. */
    static String libraryFileName() {
        return Environment.getJniLibraryFileName("rocksdbjni");
    }

    private static InputStream open(String resource) throws IOException {
        InputStream in = RocksDB.class.getResourceAsStream(resource);
        if (in == null) {
            throw new IOException("RocksJava's jar has no " + resource + " for this platform");
        }
        return in;
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    }
}
