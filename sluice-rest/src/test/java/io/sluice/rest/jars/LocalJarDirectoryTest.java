package io.sluice.rest.jars;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.graph.JobId;
import io.sluice.rest.model.JarInfo;
import io.sluice.util.ManualClock;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Jars stored, listed again after a restart (a new directory object on the same directory), and
 * deleted with their files; unfinished uploads of a crash removed once stale. Real files, counted.
 */
class LocalJarDirectoryTest {
    @TempDir
    Path dir;
    private final ExecutorService io = Executors.newSingleThreadExecutor();
    private final ManualClock clock = new ManualClock(System.currentTimeMillis());

    @AfterEach
    void stop() {
        io.shutdownNow();
    }

    @Test
    void jarsOfAnEarlierRunAreListedAgainAndCanBeDeletedAndStaleUploadsGo() throws Exception {
        LocalJarDirectory first = new LocalJarDirectory(dir, io, clock);
        JarInfo a = first.store("a.jar", new ByteArrayInputStream(jar()), 1 << 20).join();
        JarInfo b = first.store("b.jar", new ByteArrayInputStream(jar()), 1 << 20).join();
        Path stale = Files.writeString(dir.resolve("0123456789abcdef0123456789abcdef.upload"), "cut off");
        Files.setLastModifiedTime(stale, FileTime.fromMillis(clock.currentTimeMillis() - Duration.ofHours(2).toMillis()));
        Path fresh = Files.writeString(dir.resolve("fedcba9876543210fedcba9876543210.upload"), "in progress");
        Files.writeString(dir.resolve("notes.txt"), "not a jar");

        LocalJarDirectory restarted = new LocalJarDirectory(dir, io, clock);
        assertThat(restarted.list()).isEmpty();
        List<JarInfo> found = restarted.loadStored().join();
        assertThat(found).extracting(JarInfo::id).containsExactlyInAnyOrder(a.id(), b.id());
        assertThat(restarted.list()).extracting(JarInfo::sha256).containsExactlyInAnyOrder(a.sha256(), b.sha256());
        assertThat(restarted.find(a.id()).orElseThrow().name()).isEqualTo(a.id() + ".jar");
        assertThat(stale).as("an upload cut off long ago").doesNotExist();
        assertThat(fresh).as("perhaps still being written").exists();

        restarted.recordRun(a.id(), JobId.generate());
        assertThat(restarted.jobsOf(a.id())).hasSize(1);
        assertThat(restarted.delete(a.id()).join()).isPresent();
        assertThat(restarted.delete(a.id()).join()).as("gone").isEmpty();
        assertThat(restarted.jobsOf(a.id())).isEmpty();
        assertThat(restarted.list()).extracting(JarInfo::id).containsExactly(b.id());
        try (Stream<Path> files = Files.list(dir)) {
            assertThat(files.map(p -> p.getFileName().toString()))
                    .containsExactlyInAnyOrder(b.id() + ".jar", fresh.getFileName().toString(), "notes.txt");
        }
    }

    private static byte[] jar() throws IOException {
        java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
        try (ZipOutputStream zip = new ZipOutputStream(bytes)) {
            zip.putNextEntry(new ZipEntry("com/example/Job.class"));
            zip.write(new byte[] {(byte) 0xca, (byte) 0xfe});
            zip.closeEntry();
        }
        return bytes.toByteArray();
    }
}
