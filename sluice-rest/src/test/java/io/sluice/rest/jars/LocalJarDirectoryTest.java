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
 * Jars stored, listed again after a restart (a new directory object on the same directory) under
 * their uploaded names and with the jobs run from them, and deleted with their files; unfinished
 * uploads and the metadata of jars that are gone removed once stale. Real files, counted.
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
        JobId runFromA = JobId.generate();
        first.recordRun(a.id(), runFromA).join();
        String legacy = "00112233445566778899aabbccddeeff"; // stored by a version that kept no metadata
        Files.write(dir.resolve(legacy + ".jar"), jar());
        Path orphan = Files.writeString(dir.resolve("ffeeddccbbaa99887766554433221100.properties"), "name=gone.jar\n");
        Files.setLastModifiedTime(orphan, FileTime.fromMillis(clock.currentTimeMillis() - Duration.ofHours(2).toMillis()));
        Path stale = Files.writeString(dir.resolve("0123456789abcdef0123456789abcdef.upload"), "cut off");
        Files.setLastModifiedTime(stale, FileTime.fromMillis(clock.currentTimeMillis() - Duration.ofHours(2).toMillis()));
        Path fresh = Files.writeString(dir.resolve("fedcba9876543210fedcba9876543210.upload"), "in progress");
        Files.writeString(dir.resolve("notes.txt"), "not a jar");

        LocalJarDirectory restarted = new LocalJarDirectory(dir, io, clock);
        assertThat(restarted.list()).isEmpty();
        List<JarInfo> found = restarted.loadStored().join();
        assertThat(found).extracting(JarInfo::id).containsExactlyInAnyOrder(a.id(), b.id(), legacy);
        assertThat(restarted.list()).extracting(JarInfo::sha256).contains(a.sha256(), b.sha256());
        assertThat(restarted.find(a.id()).orElseThrow()).as("name and upload time kept").isEqualTo(a);
        assertThat(restarted.find(b.id()).orElseThrow().name()).isEqualTo("b.jar");
        assertThat(restarted.find(legacy).orElseThrow().name()).isEqualTo(legacy + ".jar");
        assertThat(restarted.jobsOf(a.id())).as("the jobs run from it, kept").containsExactly(runFromA);
        assertThat(restarted.jobsOf(b.id())).isEmpty();
        assertThat(stale).as("an upload cut off long ago").doesNotExist();
        assertThat(orphan).as("the name of a jar that is gone").doesNotExist();
        assertThat(fresh).as("perhaps still being written").exists();

        JobId another = JobId.generate();
        restarted.recordRun(a.id(), another).join();
        assertThat(new LocalJarDirectory(dir, io, clock).loadStored().join()).hasSize(3);
        assertThat(restarted.jobsOf(a.id())).containsExactly(runFromA, another);
        assertThat(restarted.delete(a.id()).join()).isPresent();
        assertThat(restarted.delete(a.id()).join()).as("gone").isEmpty();
        assertThat(restarted.jobsOf(a.id())).isEmpty();
        assertThat(restarted.delete(legacy).join()).isPresent();
        assertThat(restarted.list()).extracting(JarInfo::id).containsExactly(b.id());
        try (Stream<Path> files = Files.list(dir)) {
            assertThat(files.map(p -> p.getFileName().toString())).as("nothing of the deleted jars left")
                    .containsExactlyInAnyOrder(b.id() + ".jar", b.id() + ".properties", fresh.getFileName().toString(),
                            "notes.txt");
        }
        LocalJarDirectory third = new LocalJarDirectory(dir, io, clock);
        third.loadStored().join();
        assertThat(third.list()).containsExactly(b);
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
