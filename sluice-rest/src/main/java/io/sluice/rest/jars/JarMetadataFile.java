package io.sluice.rest.jars;

import io.sluice.graph.JobId;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Properties;

/**
 * What a {@link LocalJarDirectory} keeps beside each stored jar so that a restarted server knows it
 * as before: the uploaded name, the upload time and the jobs run from it, in {@code <id>.properties}
 * next to {@code <id>.jar}. Written whole to {@code <id>.properties.tmp} and moved over the old file
 * atomically, so a crash leaves the old content or the new one, never a torn file.
 *
 * <p>Threading: stateless; blocks on the file system (call on an I/O executor). Callers serialise
 * writes of one jar's file.
 */
final class JarMetadataFile {
    static final String SUFFIX = ".properties";
    static final String TEMP_SUFFIX = ".properties.tmp";

    /** What the file holds. */
    record Metadata(String name, long uploadedAtMillis, List<JobId> jobs) {
        Metadata {
            jobs = List.copyOf(jobs);
        }
    }

    private JarMetadataFile() {
    }

    static Path fileOf(Path directory, String jarId) {
        return directory.resolve(jarId + SUFFIX);
    }

    static void write(Path directory, String jarId, Metadata metadata) throws IOException {
        Properties p = new Properties();
        p.setProperty("name", metadata.name());
        p.setProperty("uploadedAtMillis", Long.toString(metadata.uploadedAtMillis()));
        p.setProperty("jobs", String.join(",", metadata.jobs().stream().map(JobId::value).toList()));
        Path temp = directory.resolve(jarId + TEMP_SUFFIX);
        try (OutputStream out = Files.newOutputStream(temp)) {
            p.store(out, "Sluice: the uploaded jar " + jarId + ".jar");
        }
        Files.move(temp, fileOf(directory, jarId), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }

    /** The jar's metadata, or empty when it has none (stored by a version that kept none) or it is unreadable. */
    static Optional<Metadata> read(Path directory, String jarId) throws IOException {
        Properties p = new Properties();
        try (InputStream in = Files.newInputStream(fileOf(directory, jarId))) {
            p.load(in);
        } catch (NoSuchFileException e) {
            return Optional.empty();
        }
        String name = p.getProperty("name");
        if (name == null || name.isBlank()) {
            return Optional.empty();
        }
        long uploadedAt;
        try {
            uploadedAt = Long.parseLong(p.getProperty("uploadedAtMillis", "0"));
        } catch (NumberFormatException e) {
            uploadedAt = 0;
        }
        List<JobId> jobs = new ArrayList<>();
        for (String job : p.getProperty("jobs", "").split(",")) {
            if (!job.isBlank()) {
                try {
                    jobs.add(JobId.of(job.strip()));
                } catch (IllegalArgumentException e) {
                    // not a job id (edited by hand): skipped
                }
            }
        }
        return Optional.of(new Metadata(LocalJarDirectory.displayName(name), uploadedAt, jobs));
    }

    static void delete(Path directory, String jarId) throws IOException {
        Files.deleteIfExists(fileOf(directory, jarId));
    }
}
