package io.sluice.storage;

import io.sluice.concurrent.BackoffPolicy;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * A {@link BlobStore} on a local (or locally mounted) file system: a blob is a file at
 * {@code root/path}.
 *
 * <p>{@link #put(String, byte[])} and {@link #put(String, BlobContent)} (streaming) write a temporary file whose name ends in
 * {@value #IN_PROGRESS_SUFFIX} next to the target, forces it to disk, then atomically renames it
 * onto the target. A writer that crashes mid-put therefore leaves at most a temporary file, which
 * {@link #get}, {@link #exists} and {@link #list} never show. Such leftovers are removed with their
 * directory by {@link #deleteRecursively(String)}.
 *
 * <p>Threading: thread-safe and stateless apart from the root; every method except
 * {@link #describe()} blocks on disk I/O and must not be called from a main thread.
 */
public final class LocalFileBlobStore implements BlobStore {
    /** Marks files that are still being written; never visible as blobs. */
    public static final String IN_PROGRESS_SUFFIX = ".inprogress";
    private static final int COPY_BUFFER_BYTES = 64 * 1024;
    /**
     * {@link #deleteRecursively} of a directory that a writer adds to meanwhile: deleted again at
     * once, five attempts in all, then the failure is the caller's.
     */
    static final BackoffPolicy DELETE_WHILE_WRITTEN = BackoffPolicy.fixed(Duration.ZERO).toBuilder().maxAttempts(5).build();

    private final Path root;
    private final String location;
    private final String role;

    /** A store in the role {@link StorageException#CHECKPOINT_STORAGE}. */
    public LocalFileBlobStore(Path root) {
        this(root, StorageException.CHECKPOINT_STORAGE);
    }

    /** @param role what the store is for, named in its error messages (see {@link BlobStore#role()}) */
    public LocalFileBlobStore(Path root, String role) {
        this.root = root.toAbsolutePath().normalize();
        this.location = "file://" + this.root.toString().replace('\\', '/');
        this.role = java.util.Objects.requireNonNull(role, "role");
    }

    @Override
    public String role() {
        return role;
    }

    /** The directory blobs are stored under. */
    public Path root() {
        return root;
    }

    @Override
    public java.util.Optional<Path> localFile(String path) {
        return java.util.Optional.of(resolve(path));
    }

    @Override
    public String describe() {
        return location;
    }

    @Override
    public void put(String path, byte[] data) {
        write(path, ch -> {
            ByteBuffer buf = ByteBuffer.wrap(data);
            while (buf.hasRemaining()) {
                ch.write(buf);
            }
        });
    }

    /**
     * Streams {@code content} into the in-progress file, then forces and renames it as
     * {@link #put(String, byte[])} does; the content is never held in memory as a whole. If the content
     * cannot be read (or has fewer bytes than its length), no blob and no temporary file are left.
     */
    @Override
    public void put(String path, BlobContent content) {
        long length = content.length();
        write(path, ch -> {
            try (InputStream in = content.open(0, length)) {
                long copied = 0;
                ByteBuffer buf = ByteBuffer.allocate(COPY_BUFFER_BYTES);
                int n;
                while ((n = in.read(buf.array(), 0, buf.capacity())) >= 0) {
                    buf.limit(n);
                    while (buf.hasRemaining()) {
                        ch.write(buf);
                    }
                    buf.clear();
                    copied += n;
                }
                if (copied != length) {
                    throw new IOException("the content to write has " + copied + " bytes, not the " + length
                            + " it announced");
                }
            }
        });
    }

    /**
     * Publishes {@code file} without copying it: forces it to disk and hard-links it to the in-progress name,
     * which {@link #publish} moves into place as it does for {@link #put}. Where no link is possible (the file is
     * on another file system) the in-progress file is a forced copy instead.
     */
    @Override
    public void putFile(String path, Path file) {
        publish(path, " publishing the local file " + file, temp -> {
            if (link(temp, file)) {
                try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
                    ch.force(true);
                }
            } else {
                Files.copy(file, temp);
                try (FileChannel ch = FileChannel.open(temp, StandardOpenOption.WRITE)) {
                    ch.force(true);
                }
            }
        });
    }

    /** Makes {@code link} a hard link to the existing {@code file}; false where the file system cannot. */
    private static boolean link(Path link, Path file) throws IOException {
        try {
            Files.createLink(link, file);
            return true;
        } catch (UnsupportedOperationException e) {
            return false;
        } catch (java.nio.file.FileSystemException e) {
            if (!Files.exists(file)) {
                throw e;
            }
            return false; // e.g. EXDEV: another file system
        }
    }

    /** The file of the blob {@code path} is to be written to; refuses the suffix of unfinished writes. */
    private Path writableTarget(String path) {
        Path target = resolve(path);
        if (isInProgressName(target)) {
            throw new IllegalArgumentException("Blob path '" + path + "' ends in the reserved suffix "
                    + IN_PROGRESS_SUFFIX + " that marks unfinished writes; choose another name");
        }
        return target;
    }

    /** A fresh in-progress name beside {@code target}: hidden, unique, with the suffix listings skip. */
    private static Path inProgressSibling(Path target) {
        return target.resolveSibling("." + target.getFileName() + "." + UUID.randomUUID() + IN_PROGRESS_SUFFIX);
    }

    /** Writes a blob through a temp file: create, fill, force, atomic move, force the directory. */
    private void write(String path, Filler filler) {
        publish(path, "", temp -> {
            try (FileChannel ch = FileChannel.open(temp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
                filler.fill(ch);
                ch.force(true);
            }
        });
    }

    /**
     * Has {@code maker} make the complete blob, forced to disk, at a fresh in-progress name beside the blob's
     * file, then moves it into place atomically and forces the directory; on any failure the in-progress file is
     * deleted and a {@link StorageException} names the path ({@code detail} is added to its cause).
     */
    private void publish(String path, String detail, InProgressMaker maker) {
        Path target = writableTarget(path);
        Path temp = null;
        try {
            Path dir = target.getParent();
            Files.createDirectories(dir);
            temp = inProgressSibling(target);
            maker.make(temp);
            Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE);
            temp = null;
            forceDirectory(dir);
        } catch (IOException | RuntimeException e) {
            if (temp != null) {
                deleteQuietly(temp);
            }
            throw new StorageException(StorageException.message(role, location,
                    "failed (" + StorageException.describeCause(e) + ")" + detail, "put", path), e);
        }
    }

    /** Makes the complete, forced in-progress file of a blob at the given path. */
    private interface InProgressMaker {
        void make(Path temp) throws IOException;
    }

    /** Writes a blob's bytes into its open in-progress file. */
    private interface Filler {
        void fill(FileChannel ch) throws IOException;
    }

    /**
     * The file of the blob as a stream. Read errors (a disk failure, the blob deleted on a file system
     * that frees it at once) are {@link IOException}s from {@code read}, as {@link Files#newInputStream} gives them.
     */
    @Override
    public InputStream openRead(String path) {
        Path file = resolve(path);
        if (isInProgressName(file) || Files.isDirectory(file)) {
            throw notFound(path, null);
        }
        try {
            return Files.newInputStream(file);
        } catch (NoSuchFileException e) {
            throw notFound(path, e);
        } catch (IOException e) {
            throw new StorageException(StorageException.message(role, location,
                    "failed (" + StorageException.describeCause(e) + ")", "get", path), e);
        }
    }

    @Override
    public byte[] get(String path) {
        Path file = resolve(path);
        if (isInProgressName(file) || Files.isDirectory(file)) {
            throw notFound(path, null);
        }
        try {
            return Files.readAllBytes(file);
        } catch (NoSuchFileException e) {
            throw notFound(path, e);
        } catch (IOException e) {
            throw new StorageException(StorageException.message(role, location,
                    "failed (" + StorageException.describeCause(e) + ")", "get", path), e);
        }
    }

    private BlobNotFoundException notFound(String path, Throwable cause) {
        return new BlobNotFoundException(StorageException.message(role, location, "has no blob", "get", path)
                + " (it was never written completely, or it was deleted)", cause);
    }

    @Override
    public boolean exists(String path) {
        Path file = resolve(path);
        return !isInProgressName(file) && Files.isRegularFile(file);
    }

    @Override
    public List<String> list(String prefix) {
        if (prefix == null || prefix.startsWith("/") || prefix.contains("\\")) {
            throw new IllegalArgumentException("Blob path prefix must be relative and '/'-separated, not '" + prefix + "'");
        }
        int slash = prefix.lastIndexOf('/');
        Path base = slash < 0 ? root : resolve(prefix.substring(0, slash));
        if (!Files.isDirectory(base)) {
            return List.of();
        }
        List<String> out = new ArrayList<>();
        try {
            Files.walkFileTree(base, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) {
                    if (attrs.isRegularFile() && !isInProgressName(file)) {
                        String key = toKey(file);
                        if (key.startsWith(prefix)) {
                            out.add(key);
                        }
                    }
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult visitFileFailed(Path file, IOException exc) throws IOException {
                    if (exc instanceof NoSuchFileException) {
                        return FileVisitResult.CONTINUE; // deleted while we listed: not there any more
                    }
                    throw exc;
                }
            });
        } catch (NoSuchFileException e) {
            return List.of();
        } catch (IOException e) {
            throw new StorageException(StorageException.message(role, location,
                    "failed (" + StorageException.describeCause(e) + ")", "list", prefix), e);
        }
        out.sort(null);
        return out;
    }

    /**
     * Deletes the hidden in-progress files ({@code .<name>.<uuid>}{@value #IN_PROGRESS_SUFFIX}) whose blob path
     * would start with {@code prefix} and is accepted by {@code which}: what a writer that died mid-put left.
     */
    @Override
    public int discardUnfinishedWrites(String prefix, java.util.function.Predicate<String> which) {
        if (prefix == null || prefix.startsWith("/") || prefix.contains("\\")) {
            throw new IllegalArgumentException("Blob path prefix must be relative and '/'-separated, not '" + prefix + "'");
        }
        int slash = prefix.lastIndexOf('/');
        Path base = slash < 0 ? root : resolve(prefix.substring(0, slash));
        if (!Files.isDirectory(base)) {
            return 0;
        }
        int[] discarded = {0};
        try {
            Files.walkFileTree(base, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                    String published = publishedName(file);
                    if (attrs.isRegularFile() && published != null) {
                        String key = toKey(file.resolveSibling(published));
                        if (key.startsWith(prefix) && which.test(key) && Files.deleteIfExists(file)) {
                            discarded[0]++;
                        }
                    }
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult visitFileFailed(Path file, IOException exc) throws IOException {
                    if (exc instanceof NoSuchFileException) {
                        return FileVisitResult.CONTINUE; // published or deleted while we looked
                    }
                    throw exc;
                }
            });
        } catch (NoSuchFileException e) {
            return discarded[0];
        } catch (IOException e) {
            throw new StorageException(StorageException.message(role, location, "failed (" + StorageException
                    .describeCause(e) + ") while discarding unfinished writes", "discardUnfinishedWrites", prefix), e);
        }
        return discarded[0];
    }

    /** The name of the blob an in-progress file ({@link #inProgressSibling}) is written for; null for any other. */
    private static String publishedName(Path file) {
        String name = file.getFileName().toString();
        int uuidStart = name.length() - IN_PROGRESS_SUFFIX.length() - 37; // "." + a UUID's 36 characters
        if (!name.startsWith(".") || !name.endsWith(IN_PROGRESS_SUFFIX) || uuidStart < 2
                || name.charAt(uuidStart) != '.') {
            return null;
        }
        return name.substring(1, uuidStart);
    }

    @Override
    public void delete(String path) {
        try {
            Files.deleteIfExists(resolve(path));
        } catch (DirectoryNotEmptyException e) {
            throw new StorageException(StorageException.message(role, location,
                    "refused (it is a non-empty directory; use deleteRecursively)", "delete", path), e);
        } catch (IOException e) {
            throw new StorageException(StorageException.message(role, location,
                    "failed (" + StorageException.describeCause(e) + ")", "delete", path), e);
        }
    }

    @Override
    public void deleteRecursively(String prefix) {
        Path top = prefix.isEmpty() ? root : resolve(prefix);
        // A writer may add a file while we delete (e.g. a task's late state upload into an aborted
        // checkpoint): retry a few times rather than leave the directory behind.
        for (int attempt = 1; ; attempt++) {
            try {
                deleteTree(top, prefix);
                return;
            } catch (StorageException e) {
                if (!DELETE_WHILE_WRITTEN.allowsRetry(attempt)
                        || !(e.getCause() instanceof java.nio.file.DirectoryNotEmptyException)) {
                    throw e;
                }
            }
        }
    }

    private void deleteTree(Path top, String prefix) {
        if (!Files.exists(top)) {
            return;
        }
        try {
            Files.walkFileTree(top, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                    Files.deleteIfExists(file);
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult visitFileFailed(Path file, IOException exc) throws IOException {
                    if (exc instanceof NoSuchFileException) {
                        return FileVisitResult.CONTINUE; // deleted concurrently: fine, we want it gone
                    }
                    throw exc;
                }

                @Override
                public FileVisitResult postVisitDirectory(Path dir, IOException exc) throws IOException {
                    if (exc != null && !(exc instanceof NoSuchFileException)) {
                        throw exc;
                    }
                    if (!dir.equals(root)) {
                        Files.deleteIfExists(dir);
                    }
                    return FileVisitResult.CONTINUE;
                }
            });
        } catch (IOException e) {
            throw new StorageException(StorageException.message(role, location,
                    "failed (" + StorageException.describeCause(e) + ")", "deleteRecursively", prefix), e);
        }
    }

    /** Maps a blob path to its file, rejecting paths that would escape the root. */
    private Path resolve(String path) {
        if (path == null || path.isEmpty() || path.startsWith("/") || path.contains("\\")) {
            throw new IllegalArgumentException("Blob path must be a non-empty relative '/'-separated key, not '"
                    + path + "' (store " + location + ")");
        }
        for (String segment : path.split("/")) {
            if (segment.equals("..") || segment.equals(".")) {
                throw new IllegalArgumentException("Blob path '" + path + "' must not contain '.' or '..' segments"
                        + " (store " + location + ")");
            }
        }
        Path p = root.resolve(path).normalize();
        if (!p.startsWith(root) || p.equals(root)) {
            throw new IllegalArgumentException("Blob path '" + path + "' is outside the store " + location);
        }
        return p;
    }

    private String toKey(Path file) {
        Path rel = root.relativize(file);
        StringBuilder sb = new StringBuilder();
        for (Path part : rel) {
            if (sb.length() > 0) {
                sb.append('/');
            }
            sb.append(part);
        }
        return sb.toString();
    }

    private static boolean isInProgressName(Path p) {
        Path name = p.getFileName();
        return name != null && name.toString().endsWith(IN_PROGRESS_SUFFIX);
    }

    /** Makes the rename durable; best effort, since not every file system can sync a directory. */
    private static void forceDirectory(Path dir) {
        try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
            ch.force(true);
        } catch (IOException | UnsupportedOperationException ignored) {
            // The data file itself is synced; a lost rename only loses this latest blob on power failure.
        }
    }

    private static void deleteQuietly(Path p) {
        try {
            Files.deleteIfExists(p);
        } catch (IOException ignored) {
            // Leftover temp files are invisible to readers and removed with their directory.
        }
    }
}
