package io.sluice.jar;

import io.sluice.rpc.MainThreads;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.DigestOutputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import java.util.UUID;
import java.util.jar.JarFile;
import java.util.regex.Pattern;

/**
 * The jars clients uploaded (REST {@code POST /v1/jars}), in one directory: {@code <dir>/<id>.jar}
 * and {@code <dir>/<id>.properties} (its name, size, SHA-256, upload time). Ids are generated UUIDs;
 * a client's file name is kept for display only and never used as a path, and a lookup accepts only
 * well-formed ids, so no request can reach a file outside the store.
 *
 * <p>Threading: thread-safe; every method blocks on the file system (I/O executor only).
 */
public final class JarStore {
    private static final Pattern ID = Pattern.compile("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}");
    private static final int MAX_NAME_LENGTH = 200;

    private final Path dir;

    public JarStore(Path dir) {
        this.dir = dir.toAbsolutePath().normalize();
    }

    public Path directory() {
        return dir;
    }

    /**
     * Stores {@code content} (at most {@code maxBytes}) as a new jar. Fails with {@link JarException}
     * {@code TOO_LARGE} or {@code INVALID} (not a zip/jar file); nothing is kept then.
     */
    public StoredJar upload(String originalFileName, InputStream content, long maxBytes) throws IOException {
        MainThreads.checkNotMainThread("jar upload");
        Files.createDirectories(dir);
        String id = UUID.randomUUID().toString();
        Path tmp = dir.resolve(id + ".upload");
        MessageDigest sha;
        try {
            sha = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("This JVM has no SHA-256", e);
        }
        long size = 0;
        try {
            try (OutputStream out = new DigestOutputStream(Files.newOutputStream(tmp), sha)) {
                byte[] buffer = new byte[64 * 1024];
                for (int n; (n = content.read(buffer)) >= 0; ) {
                    size += n;
                    if (size > maxBytes) {
                        throw new JarException(JarException.Kind.TOO_LARGE, "The jar is larger than the limit of "
                                + maxBytes + " bytes; raise rest.max-upload-size or upload a smaller jar");
                    }
                    out.write(buffer, 0, n);
                }
            }
            if (size == 0) {
                throw new JarException(JarException.Kind.INVALID, "The uploaded file is empty; upload a jar file");
            }
            try (JarFile ignored = new JarFile(tmp.toFile())) {
                // opens: a zip with a readable central directory
            } catch (IOException e) {
                throw new JarException(JarException.Kind.INVALID, "The uploaded file '" + displayName(originalFileName)
                        + "' is not a jar (zip) file (" + e.getMessage() + "); build the job with 'mvn package' and upload"
                        + " the jar", e);
            }
            StoredJar jar = new StoredJar(id, displayName(originalFileName), size, HexFormat.of().formatHex(sha.digest()),
                    System.currentTimeMillis());
            writeInfo(jar);
            Files.move(tmp, jarPath(id), StandardCopyOption.ATOMIC_MOVE);
            return jar;
        } finally {
            Files.deleteIfExists(tmp);
        }
    }

    /** The stored jars, oldest first. */
    public List<StoredJar> list() throws IOException {
        MainThreads.checkNotMainThread("jar list");
        List<StoredJar> out = new ArrayList<>();
        if (!Files.isDirectory(dir)) {
            return out;
        }
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, "*.jar")) {
            for (Path f : files) {
                String name = f.getFileName().toString();
                String id = name.substring(0, name.length() - ".jar".length());
                if (ID.matcher(id).matches()) {
                    info(id).ifPresent(out::add);
                }
            }
        }
        out.sort(Comparator.comparingLong(StoredJar::uploadedAtMillis).thenComparing(StoredJar::id));
        return out;
    }

    /** The jar with {@code id}, if stored (a malformed id is simply not found). */
    public Optional<StoredJar> info(String id) throws IOException {
        MainThreads.checkNotMainThread("jar lookup");
        if (id == null || !ID.matcher(id).matches() || !Files.isRegularFile(jarPath(id))) {
            return Optional.empty();
        }
        Properties p = new Properties();
        try (Reader in = Files.newBufferedReader(dir.resolve(id + ".properties"), StandardCharsets.UTF_8)) {
            p.load(in);
        } catch (java.nio.file.NoSuchFileException e) {
            return Optional.empty();
        }
        return Optional.of(new StoredJar(id, p.getProperty("name", id + ".jar"), Long.parseLong(p.getProperty("size", "0")),
                p.getProperty("sha256", ""), Long.parseLong(p.getProperty("uploadedAtMillis", "0"))));
    }

    /** The file of the jar with {@code id}; fails with {@link JarException} {@code NOT_FOUND} naming the id. */
    public Path file(String id) throws IOException {
        if (info(id).isEmpty()) {
            throw new JarException(JarException.Kind.NOT_FOUND, "There is no uploaded jar with id '" + shorten(id)
                    + "'; list the jars with GET /v1/jars or upload it again");
        }
        return jarPath(id);
    }

    private Path jarPath(String id) {
        return dir.resolve(id + ".jar");
    }

    private void writeInfo(StoredJar jar) throws IOException {
        Properties p = new Properties();
        p.setProperty("name", jar.name());
        p.setProperty("size", Long.toString(jar.sizeBytes()));
        p.setProperty("sha256", jar.sha256());
        p.setProperty("uploadedAtMillis", Long.toString(jar.uploadedAtMillis()));
        Path tmp = dir.resolve(jar.id() + ".properties.tmp");
        try (Writer out = Files.newBufferedWriter(tmp, StandardCharsets.UTF_8)) {
            p.store(out, "Sluice uploaded jar");
        } catch (IOException e) {
            throw new UncheckedIOException("Could not write the description of jar " + jar.id() + " in " + dir, e);
        }
        Files.move(tmp, dir.resolve(jar.id() + ".properties"), StandardCopyOption.ATOMIC_MOVE,
                StandardCopyOption.REPLACE_EXISTING);
    }

    /** The last path element of a client's file name, without control characters, at most 200 characters. */
    static String displayName(String originalFileName) {
        String name = originalFileName == null ? "" : originalFileName;
        name = name.substring(Math.max(name.lastIndexOf('/'), name.lastIndexOf('\\')) + 1);
        name = name.replaceAll("\\p{Cntrl}", "");
        if (name.isBlank()) {
            name = "upload.jar";
        }
        return name.length() > MAX_NAME_LENGTH ? name.substring(0, MAX_NAME_LENGTH) : name;
    }

    private static String shorten(String s) {
        if (s == null) {
            return "";
        }
        String clean = s.replaceAll("\\p{Cntrl}", "?");
        return clean.length() > 80 ? clean.substring(0, 80) + "..." : clean;
    }
}
