package io.sluice.testing.process;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SharedClassArchiveTest {
    @TempDir
    Path dir;

    @Test
    void theArchiveIsMadeOnceAndALaterJvmOfTheJarMapsItSilently() throws Exception {
        Path jar = traineeJar();
        Path archives = dir.resolve("archives");

        List<String> options = SharedClassArchive.jvmOptions(jar, archives, List.of(), "ready");

        assertThat(options).hasSize(3).contains("-Xlog:cds=off", "-Xlog:cds+dynamic=off");
        Path archive = Path.of(options.get(0).substring("-XX:SharedArchiveFile=".length()));
        assertThat(archive.getParent()).isEqualTo(archives.toAbsolutePath());
        assertThat(archive).isNotEmptyFile();
        try (Stream<Path> files = Files.list(archives)) {
            assertThat(files.map(p -> p.getFileName().toString()))
                    .as("the archive and its lock file, nothing half-written")
                    .containsExactlyInAnyOrder(archive.getFileName().toString(), archive.getFileName() + ".lock");
        }
        var made = Files.getLastModifiedTime(archive);
        assertThat(SharedClassArchive.jvmOptions(jar, archives, List.of(), "ready")).isEqualTo(options);
        assertThat(Files.getLastModifiedTime(archive)).as("not made again").isEqualTo(made);

        // -Xshare:on makes a JVM that cannot map the archive fail (exit 1) instead of starting without it.
        List<String> command = new ArrayList<>(List.of(java(), "-Xshare:on"));
        command.addAll(options);
        command.addAll(List.of("-jar", jar.toString(), "--exit"));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(out).isZero();
        assertThat(out).as("the program's output only").isEqualTo("done\n");
    }

    @Test
    void aTrainingRunThatEndsWithoutItsMarkGivesNoOptionsAndLeavesNoArchive() throws Exception {
        Path jar = traineeJar();
        Path archives = dir.resolve("archives");

        assertThat(SharedClassArchive.jvmOptions(jar, archives, List.of("--exit"), "ready")).isEmpty();

        try (Stream<Path> files = Files.list(archives)) {
            assertThat(files.map(p -> p.getFileName().toString())).allMatch(n -> n.endsWith(".lock"));
        }
    }

    /** A jar of {@link ArchiveTrainee}, written fresh in the test's directory (its own path and time). */
    private Path traineeJar() throws IOException {
        Path jar = dir.resolve("trainee.jar");
        Manifest manifest = new Manifest();
        manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        manifest.getMainAttributes().put(Attributes.Name.MAIN_CLASS, ArchiveTrainee.class.getName());
        String entry = ArchiveTrainee.class.getName().replace('.', '/') + ".class";
        try (OutputStream file = Files.newOutputStream(jar);
                JarOutputStream out = new JarOutputStream(file, manifest);
                InputStream in = ArchiveTrainee.class.getResourceAsStream("ArchiveTrainee.class")) {
            out.putNextEntry(new JarEntry(entry));
            in.transferTo(out);
            out.closeEntry();
        }
        return jar;
    }

    private static String java() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }
}
