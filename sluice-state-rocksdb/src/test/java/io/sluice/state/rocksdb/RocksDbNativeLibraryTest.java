package io.sluice.state.rocksdb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RocksDbNativeLibraryTest {
    @TempDir
    Path dir;

    @Test
    void theLibraryIsWrittenOnceUnderItsDigestInADirectoryOfTheUserAlone() throws IOException {
        Path root = dir.resolve("sluice-rocksdb-test");

        Path first = RocksDbNativeLibrary.extracted(root);
        Path library = first.resolve(RocksDbNativeLibrary.libraryFileName());
        var written = Files.getLastModifiedTime(library);
        Path second = RocksDbNativeLibrary.extracted(root);

        assertThat(second).isEqualTo(first);
        assertThat(first.getParent()).isEqualTo(root);
        assertThat(first.getFileName().toString()).matches("[0-9a-f]{32}");
        assertThat(library).isNotEmptyFile();
        assertThat(Files.getLastModifiedTime(library)).as("not written again").isEqualTo(written);
        try (Stream<Path> files = Files.list(first)) {
            assertThat(files).as("nothing half-written left").containsExactly(library);
        }
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(root))).isEqualTo("rwx------");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(first))).isEqualTo("rwx------");
    }

    @Test
    void aProcessKilledAfterLoadingTheLibraryLeavesNoCopyOfIt() throws Exception {
        Path tmp = Files.createDirectory(dir.resolve("tmp"));
        for (int i = 0; i < 2; i++) {
            Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-Djava.io.tmpdir=" + tmp, "-cp", System.getProperty("java.class.path"),
                    NativeLibraryLoadingProcess.class.getName()).redirectErrorStream(true).start();
            try (BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), UTF_8))) {
                assertThat(out.readLine()).isEqualTo("loaded Options");
            } finally {
                p.destroyForcibly(); // SIGKILL: no shutdown hook, no deleteOnExit
                assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
            }
        }

        try (Stream<Path> left = Files.list(tmp)) {
            assertThat(left.map(f -> f.getFileName().toString()))
                    .as("what two SIGKILLed processes left in their java.io.tmpdir")
                    .containsExactly("sluice-rocksdb-native-" + System.getProperty("user.name"));
        }
    }

    @Test
    void aDirectoryOthersMayWriteIsRefused() throws IOException {
        Path root = Files.createDirectory(dir.resolve("open"), PosixFilePermissions.asFileAttribute(
                PosixFilePermissions.fromString("rwxrwxrwx")));
        Files.setPosixFilePermissions(root, PosixFilePermissions.fromString("rwxrwxrwx"));

        assertThatThrownBy(() -> RocksDbNativeLibrary.extracted(root)).isInstanceOf(IOException.class)
                .hasMessageContaining("is open to others (rwxrwxrwx); it must be rwx------");
    }
}
