package io.sluice.rest.jars;

import io.sluice.rest.model.JarInfo;
import io.sluice.rest.RestException;
import io.sluice.util.Clock;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.DigestOutputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.regex.Pattern;
import java.util.zip.ZipException;
import java.util.zip.ZipFile;

/**
 * Uploaded jars in one directory, each under a generated name ({@code <id>.jar}, the id 32 hex
 * digits): an uploaded file name is kept for display only and never becomes part of a path, and a
 * jar id is checked against that form before it is used, so no request can name another file.
 * Beside each jar, {@code <id>.properties} ({@link JarMetadataFile}) keeps its uploaded name, upload
 * time and the jobs run from it, so that {@link #loadStored()} after a restart lists the jars a
 * previous run left under their names and knows which jobs use them: a jar a recovered job runs from
 * is still refused deletion, and still goes with its last job ({@code rest.jars.delete-with-last-job}).
 * A jar stored by a version that kept no such file is listed as {@code <id>.jar}, used by no job.
 *
 * <p>Threading: any thread; file work runs on the injected I/O executor; the index is guarded by
 * {@link #jars}, held only for map updates; writes and deletions of a jar's files are serialised by
 * {@link #fileLock} (taken on the I/O executor only, never with {@link #jars} held when taken).
 */
public final class LocalJarDirectory {
    private static final Pattern JAR_ID = Pattern.compile("[0-9a-f]{32}");
    private static final int MAX_DISPLAY_NAME = 200;

    private final Path directory;
    private final Executor ioExecutor;
    private final Clock clock;
    private final Map<String, JarInfo> jars = new LinkedHashMap<>();
    /** The jobs run from each jar, in run order; guarded by {@link #jars}. */
    private final Map<String, List<io.sluice.graph.JobId>> runs = new java.util.HashMap<>();
    /** Serialises the file work on a jar and its metadata (so a late metadata write cannot outlive a deletion). */
    private final Object fileLock = new Object();

    public LocalJarDirectory(Path directory, Executor ioExecutor, Clock clock) {
        this.directory = directory;
        this.ioExecutor = ioExecutor;
        this.clock = clock;
    }

    /** How old an unfinished upload ({@code <id>.upload}) must be before {@link #loadStored()} deletes it. */
    static final java.time.Duration STALE_UPLOAD = java.time.Duration.ofHours(1);

    /**
     * Indexes the jars already in the directory (stored by an earlier run of this server), oldest
     * first, and deletes unfinished uploads older than {@link #STALE_UPLOAD} (cut off by a crash); on
     * the I/O executor. Completes with the jars found. Call once at start, before serving.
     */
    public CompletableFuture<List<JarInfo>> loadStored() {
        return CompletableFuture.supplyAsync(() -> {
            if (!Files.isDirectory(directory)) {
                return List.of();
            }
            List<JarInfo> found = new ArrayList<>();
            Map<String, List<io.sluice.graph.JobId>> recovered = new java.util.HashMap<>();
            try (var files = Files.list(directory)) {
                for (Path file : files.sorted(java.util.Comparator.comparing(LocalJarDirectory::modifiedMillis)).toList()) {
                    String name = file.getFileName().toString();
                    boolean stale = clock.currentTimeMillis() - modifiedMillis(file) > STALE_UPLOAD.toMillis();
                    if ((name.endsWith(".upload") || name.endsWith(JarMetadataFile.TEMP_SUFFIX)) && stale) {
                        Files.deleteIfExists(file);
                        continue;
                    }
                    if (name.endsWith(JarMetadataFile.SUFFIX) && stale && JAR_ID.matcher(name.substring(0,
                            name.length() - JarMetadataFile.SUFFIX.length())).matches()
                            && !Files.exists(directory.resolve(name.replace(JarMetadataFile.SUFFIX, ".jar")))) {
                        Files.deleteIfExists(file); // the jar went (or never arrived) before its metadata did
                        continue;
                    }
                    String id = name.endsWith(".jar") ? name.substring(0, name.length() - 4) : "";
                    if (!JAR_ID.matcher(id).matches() || !Files.isRegularFile(file)) {
                        continue;
                    }
                    MessageDigest sha = MessageDigest.getInstance("SHA-256");
                    try (InputStream in = new java.security.DigestInputStream(Files.newInputStream(file), sha)) {
                        in.transferTo(OutputStream.nullOutputStream());
                    }
                    Optional<JarMetadataFile.Metadata> metadata = JarMetadataFile.read(directory, id);
                    found.add(new JarInfo(id, metadata.map(JarMetadataFile.Metadata::name).orElse(name), Files.size(file),
                            HexFormat.of().formatHex(sha.digest()), metadata.map(JarMetadataFile.Metadata::uploadedAtMillis)
                                    .filter(t -> t > 0).orElse(modifiedMillis(file))));
                    metadata.filter(m -> !m.jobs().isEmpty()).ifPresent(m -> recovered.put(id, m.jobs()));
                }
            } catch (IOException e) {
                throw new IllegalStateException("Could not list the stored jars in " + directory.toAbsolutePath() + ": "
                        + e.getMessage() + ". Check that the directory is readable.", e);
            } catch (NoSuchAlgorithmException e) {
                throw new IllegalStateException("SHA-256 is part of every Java runtime", e);
            }
            synchronized (jars) {
                for (JarInfo jar : found) {
                    if (jars.putIfAbsent(jar.id(), jar) == null && recovered.containsKey(jar.id())) {
                        runs.put(jar.id(), new ArrayList<>(recovered.get(jar.id())));
                    }
                }
            }
            return found;
        }, ioExecutor);
    }

    private static long modifiedMillis(Path file) {
        try {
            return Files.getLastModifiedTime(file).toMillis();
        } catch (IOException e) {
            return 0; // deleted meanwhile
        }
    }

    /** Copies {@code content} (at most {@code maxBytes}) to a new generated name and checks that it is a jar. */
    public CompletableFuture<JarInfo> store(String originalFileName, InputStream content, long maxBytes) {
        return CompletableFuture.supplyAsync(() -> {
            String id = UUID.randomUUID().toString().replace("-", "");
            Path target = directory.resolve(id + ".jar");
            Path temp = directory.resolve(id + ".upload");
            try {
                Files.createDirectories(directory);
                MessageDigest sha = MessageDigest.getInstance("SHA-256");
                long size;
                try (InputStream in = content; OutputStream out = new DigestOutputStream(Files.newOutputStream(temp), sha)) {
                    size = copyAtMost(in, out, maxBytes);
                }
                checkIsJar(temp, originalFileName);
                JarInfo info = new JarInfo(id, displayName(originalFileName), size, HexFormat.of().formatHex(sha.digest()),
                        clock.currentTimeMillis());
                // The name before the jar: a jar is never there without it (a name without its jar is removed at start).
                JarMetadataFile.write(directory, id, new JarMetadataFile.Metadata(info.name(), info.uploadedAtMillis(), List.of()));
                Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE);
                synchronized (jars) {
                    jars.put(id, info);
                }
                return info;
            } catch (IOException e) {
                throw new IllegalStateException("Could not store the uploaded jar in " + directory.toAbsolutePath()
                        + ": " + e.getMessage() + ". Check that the directory is writable and has space.", e);
            } catch (NoSuchAlgorithmException e) {
                throw new IllegalStateException("SHA-256 is part of every Java runtime", e);
            } finally {
                try {
                    Files.deleteIfExists(temp);
                } catch (IOException ignored) {
                    // the upload is refused either way; a leftover temporary file is harmless
                }
            }
        }, ioExecutor);
    }

    private static long copyAtMost(InputStream in, OutputStream out, long maxBytes) throws IOException {
        byte[] buffer = new byte[64 * 1024];
        long total = 0;
        for (int n; (n = in.read(buffer)) >= 0; ) {
            total += n;
            if (total > maxBytes) {
                throw new RestException(413, "The jar is larger than this server accepts (" + maxBytes
                        + " bytes, rest.max-upload-size)");
            }
            out.write(buffer, 0, n);
        }
        return total;
    }

    private static void checkIsJar(Path file, String originalFileName) throws IOException {
        try (ZipFile zip = new ZipFile(file.toFile())) {
            if (zip.size() == 0) {
                throw RestException.badRequest("The uploaded file '" + displayName(originalFileName)
                        + "' is an empty zip: a jar must contain the job's classes");
            }
        } catch (ZipException e) {
            throw RestException.badRequest("The uploaded file '" + displayName(originalFileName) + "' is not a jar (not a"
                    + " valid zip file: " + e.getMessage() + "). Upload the jar built from your job (mvn package).");
        }
    }

    /** The uploaded name without any directory part or control characters, for display. */
    static String displayName(String originalFileName) {
        if (originalFileName == null || originalFileName.isBlank()) {
            return "upload.jar";
        }
        String name = originalFileName.replace('\\', '/');
        name = name.substring(name.lastIndexOf('/') + 1).replaceAll("[\\p{Cntrl}]", "");
        if (name.isBlank() || name.equals(".") || name.equals("..")) {
            return "upload.jar";
        }
        return name.length() > MAX_DISPLAY_NAME ? name.substring(0, MAX_DISPLAY_NAME) : name;
    }

    /**
     * The class to run from {@code jar}: {@code entryClass} if given, else the jar's {@code Main-Class};
     * checked to be in the jar (on the I/O executor). Fails with 400 when there is none or it is missing.
     */
    public CompletableFuture<String> entryClassOf(JarInfo jar, String entryClass) {
        Path file = fileOf(jar);
        return CompletableFuture.supplyAsync(() -> {
            try (java.util.jar.JarFile jarFile = new java.util.jar.JarFile(file.toFile())) {
                String name = entryClass;
                if (name == null) {
                    java.util.jar.Manifest manifest = jarFile.getManifest();
                    name = manifest == null ? null : manifest.getMainAttributes().getValue(java.util.jar.Attributes.Name.MAIN_CLASS);
                    if (name == null || name.isBlank()) {
                        throw RestException.badRequest("The jar " + jar.id() + " (" + jar.name() + ") names no Main-Class in"
                                + " its manifest; give the class to run as entryClass");
                    }
                    name = name.strip();
                }
                if (jarFile.getEntry(name.replace('.', '/') + ".class") == null) {
                    throw RestException.badRequest("The jar " + jar.id() + " (" + jar.name() + ") has no class " + name
                            + (entryClass == null ? " (its Main-Class)" : "") + "; check the class name and that it is"
                            + " packaged in the jar");
                }
                return name;
            } catch (IOException e) {
                throw new IllegalStateException("Cannot read the stored jar " + jar.id() + " in " + directory.toAbsolutePath()
                        + ": " + e.getMessage(), e);
            }
        }, ioExecutor);
    }

    /** The stored jars, in upload order. */
    public List<JarInfo> list() {
        synchronized (jars) {
            return new ArrayList<>(jars.values());
        }
    }

    /** The jar with this id, or empty; throws 400 when {@code jarId} is not of the generated form. */
    public Optional<JarInfo> find(String jarId) {
        checkId(jarId);
        synchronized (jars) {
            return Optional.ofNullable(jars.get(jarId));
        }
    }

    /**
     * Records that {@code jobId} was submitted from the jar {@code jarId}: at once in memory, and in the
     * jar's metadata file on the I/O executor (so that a restarted server still knows). Completes when
     * written; fails when the file could not be written (the run is known until this server stops).
     */
    public CompletableFuture<Void> recordRun(String jarId, io.sluice.graph.JobId jobId) {
        checkId(jarId);
        synchronized (jars) {
            if (!jars.containsKey(jarId)) {
                return CompletableFuture.completedFuture(null);
            }
            runs.computeIfAbsent(jarId, k -> new ArrayList<>()).add(jobId);
        }
        return CompletableFuture.runAsync(() -> {
            synchronized (fileLock) {
                JarInfo jar;
                List<io.sluice.graph.JobId> jobs;
                synchronized (jars) {
                    jar = jars.get(jarId);
                    jobs = List.copyOf(runs.getOrDefault(jarId, List.of()));
                }
                if (jar == null) {
                    return; // deleted meanwhile: its metadata went with it
                }
                try {
                    JarMetadataFile.write(directory, jarId, new JarMetadataFile.Metadata(jar.name(), jar.uploadedAtMillis(), jobs));
                } catch (IOException e) {
                    throw new java.io.UncheckedIOException("Could not record in " + JarMetadataFile.fileOf(directory, jarId)
                            + " that job " + jobId + " runs from the jar " + jarId + ": " + e.getMessage() + "; after a"
                            + " restart this jar will not be known to be in use. Check that " + directory.toAbsolutePath()
                            + " is writable.", e);
                }
            }
        }, ioExecutor);
    }

    /** The jobs run from the jar, oldest first; empty for a jar never run (or unknown). */
    public List<io.sluice.graph.JobId> jobsOf(String jarId) {
        synchronized (jars) {
            return List.copyOf(runs.getOrDefault(jarId, List.of()));
        }
    }

    /**
     * Removes the jar from the index at once (it can no longer be run) and deletes its file on the I/O
     * executor; completes with the removed jar, or empty when it was not stored. A run already reading
     * the file keeps its own copy (the job's class loader copies the jar).
     */
    public CompletableFuture<Optional<JarInfo>> delete(String jarId) {
        checkId(jarId);
        JarInfo removed;
        List<io.sluice.graph.JobId> removedRuns;
        synchronized (jars) {
            removed = jars.remove(jarId);
            removedRuns = runs.remove(jarId);
        }
        if (removed == null) {
            return CompletableFuture.completedFuture(Optional.empty());
        }
        Path file = fileOf(removed);
        return CompletableFuture.supplyAsync(() -> {
            try {
                synchronized (fileLock) {
                    Files.deleteIfExists(file);
                    try {
                        JarMetadataFile.delete(directory, removed.id());
                    } catch (IOException e) {
                        // the jar is gone; its name without it is removed by the next start (loadStored)
                    }
                }
                return Optional.of(removed);
            } catch (IOException e) {
                synchronized (jars) {
                    if (Files.exists(file) && jars.putIfAbsent(removed.id(), removed) == null && removedRuns != null) {
                        runs.put(removed.id(), removedRuns); // still there: listed again, so the delete can be retried
                    }
                }
                throw new IllegalStateException("Could not delete the jar " + removed.id() + " (" + file + "): "
                        + e.getMessage() + ". Check the permissions of " + directory.toAbsolutePath()
                        + " and delete it again.", e);
            }
        }, ioExecutor);
    }

    /** The file of a stored jar; only ever a generated name in this directory. */
    public Path fileOf(JarInfo jar) {
        checkId(jar.id());
        return directory.resolve(jar.id() + ".jar");
    }

    public static void checkId(String jarId) {
        if (jarId == null || !JAR_ID.matcher(jarId).matches()) {
            throw RestException.badRequest("A jar id is 32 lowercase hex digits as returned by POST /v1/jars, not '"
                    + abbreviate(jarId) + "'");
        }
    }

    static String abbreviate(String s) {
        if (s == null) {
            return "";
        }
        String clean = s.replaceAll("[\\p{Cntrl}]", "?");
        return clean.length() > 80 ? clean.substring(0, 80) + "..." : clean;
    }
}
