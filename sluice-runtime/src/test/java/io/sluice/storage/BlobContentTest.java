package io.sluice.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.EOFException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BlobContentTest {
    @TempDir
    Path dir;

    @Test
    void rangesOfHeaderAndFileAreTheRightBytesEveryTime() throws Exception {
        byte[] header = {100, 101, 102, 103};
        byte[] body = new byte[50];
        for (int i = 0; i < body.length; i++) {
            body[i] = (byte) i;
        }
        Path file = Files.write(dir.resolve("f"), body);
        BlobContent content = BlobContent.ofFile(header, file);
        byte[] all = new byte[54];
        System.arraycopy(header, 0, all, 0, 4);
        System.arraycopy(body, 0, all, 4, 50);

        assertThat(content.length()).isEqualTo(54);
        for (long[] range : new long[][] {{0, 54}, {0, 4}, {0, 2}, {2, 10}, {4, 50}, {10, 20}, {54, 0}, {53, 1}}) {
            try (InputStream in = content.open(range[0], range[1])) {
                assertThat(in.readAllBytes()).as("range %s+%s", range[0], range[1])
                        .isEqualTo(java.util.Arrays.copyOfRange(all, (int) range[0], (int) (range[0] + range[1])));
            }
        }
        try (InputStream in = content.open(0, 54)) {
            assertThat(in.readAllBytes()).as("opened again").isEqualTo(all);
        }
        assertThat(BlobContent.of(all).open(4, 3).readAllBytes()).containsExactly(0, 1, 2);
    }

    @Test
    void rangesOutsideTheContentAreRejected() {
        BlobContent content = BlobContent.of(new byte[10]);
        assertThatThrownBy(() -> content.open(5, 6)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("outside blob content of 10 bytes");
        assertThatThrownBy(() -> content.open(-1, 2)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> content.open(0, -1)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aFileThatShrankAfterCreationFailsInsteadOfEndingEarly() throws Exception {
        Path file = Files.write(dir.resolve("f"), new byte[100]);
        BlobContent content = BlobContent.ofFile(new byte[] {1}, file);
        Files.write(file, new byte[30]);

        try (InputStream in = content.open(0, 101)) {
            assertThatThrownBy(in::readAllBytes).isInstanceOf(EOFException.class)
                    .hasMessageContaining(file.toString()).hasMessageContaining("must not change");
        }
    }

    @Test
    void aMissingFileIsNamedAtCreation() {
        Path missing = dir.resolve("missing");
        assertThatThrownBy(() -> BlobContent.ofFile(new byte[0], missing))
                .isInstanceOf(java.io.UncheckedIOException.class).hasMessageContaining(missing.toString());
    }

    @Test
    void theDefaultStreamingMethodsGoThroughTheArrayMethods() throws Exception {
        ArrayStore store = new ArrayStore();
        store.put("k", BlobContent.of(new byte[] {1, 2, 3}));
        assertThat(store.puts).containsExactly("k");
        try (InputStream in = store.openRead("k")) {
            assertThat(in.readAllBytes()).containsExactly(1, 2, 3);
        }
        assertThatThrownBy(() -> store.openRead("nothing")).isInstanceOf(BlobNotFoundException.class);
    }

    @Test
    void theDefaultPutRefusesBlobsTooLargeForAnArrayWithoutReadingThem() {
        ArrayStore store = new ArrayStore();
        BlobContent huge = new BlobContent() {
            @Override
            public long length() {
                return 3L * Integer.MAX_VALUE;
            }

            @Override
            public InputStream open(long offset, long length) {
                throw new AssertionError("must not be read");
            }
        };

        assertThatThrownBy(() -> store.put("big", huge)).isInstanceOf(StorageException.class)
                .hasMessageContaining("mem://test")
                .hasMessageContaining("cannot write a blob of " + 3L * Integer.MAX_VALUE + " bytes")
                .hasMessageContaining("put big");
        assertThat(store.puts).isEmpty();
    }

    /** A store with only the array methods, for the interface's defaults. */
    private static final class ArrayStore implements BlobStore {
        final Map<String, byte[]> blobs = new HashMap<>();
        final List<String> puts = new ArrayList<>();

        @Override
        public void put(String path, byte[] data) {
            puts.add(path);
            blobs.put(path, data.clone());
        }

        @Override
        public byte[] get(String path) {
            byte[] data = blobs.get(path);
            if (data == null) {
                throw new BlobNotFoundException("no " + path);
            }
            return data;
        }

        @Override
        public boolean exists(String path) {
            return blobs.containsKey(path);
        }

        @Override
        public List<String> list(String prefix) {
            return blobs.keySet().stream().filter(k -> k.startsWith(prefix)).sorted().toList();
        }

        @Override
        public void delete(String path) {
            blobs.remove(path);
        }

        @Override
        public void deleteRecursively(String prefix) {
            blobs.keySet().removeIf(k -> k.equals(prefix) || k.startsWith(prefix + "/"));
        }

        @Override
        public String describe() {
            return "mem://test";
        }
    }
}
