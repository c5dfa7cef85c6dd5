package io.sluice.storage;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LocalFileBlobStoreTest {
    @TempDir
    Path root;

    private LocalFileBlobStore store;

    @BeforeEach
    void setUp() {
        store = new LocalFileBlobStore(root);
    }

    @Test
    void putThenGetReturnsTheBytesAndCreatesParentDirectories() {
        store.put("job/chk-1/_metadata", "hello".getBytes(UTF_8));

        assertThat(store.get("job/chk-1/_metadata")).asString(UTF_8).isEqualTo("hello");
        assertThat(store.exists("job/chk-1/_metadata")).isTrue();
        assertThat(root.resolve("job/chk-1/_metadata")).isRegularFile();
    }

    @Test
    void putReplacesAnExistingBlobAndLeavesNoTempFiles() throws Exception {
        store.put("a/b", new byte[] {1, 2, 3});
        store.put("a/b", new byte[] {4});

        assertThat(store.get("a/b")).containsExactly(4);
        try (Stream<Path> files = Files.list(root.resolve("a"))) {
            assertThat(files).extracting(p -> p.getFileName().toString()).containsExactly("b");
        }
    }

    @Test
    void getOfMissingBlobThrowsBlobNotFoundNamingLocationAndPath() {
        assertThatThrownBy(() -> store.get("job/chk-9/_metadata"))
                .isInstanceOf(BlobNotFoundException.class)
                .hasMessageContaining(store.describe())
                .hasMessageContaining("get job/chk-9/_metadata");
        assertThat(store.exists("job/chk-9/_metadata")).isFalse();
    }

    @Test
    void getOfADirectoryIsNotFound() {
        store.put("job/chk-1/x.state", new byte[1]);

        assertThatThrownBy(() -> store.get("job/chk-1")).isInstanceOf(BlobNotFoundException.class);
        assertThat(store.exists("job/chk-1")).isFalse();
    }

    @Test
    void listReturnsSortedPathsUnderPrefix() {
        store.put("job/chk-2/_metadata", new byte[1]);
        store.put("job/chk-10/_metadata", new byte[1]);
        store.put("job/chk-2/1-0.state", new byte[1]);
        store.put("other/chk-1/_metadata", new byte[1]);

        assertThat(store.list("job/")).containsExactly(
                "job/chk-10/_metadata", "job/chk-2/1-0.state", "job/chk-2/_metadata");
        assertThat(store.list("job/chk-2/")).containsExactly("job/chk-2/1-0.state", "job/chk-2/_metadata");
        assertThat(store.list("job/chk-1")).containsExactly("job/chk-10/_metadata");
        assertThat(store.list("")).hasSize(4);
        assertThat(store.list("missing/")).isEmpty();
    }

    @Test
    void deleteRemovesOneBlobAndIsIdempotent() {
        store.put("a/one", new byte[1]);
        store.put("a/two", new byte[1]);

        store.delete("a/one");
        store.delete("a/one");

        assertThat(store.exists("a/one")).isFalse();
        assertThat(store.list("a/")).containsExactly("a/two");
    }

    @Test
    void aDirectoryWrittenWhileDeletedIsDeletedAgainAtOnceFiveAttemptsInAll() {
        assertThat(LocalFileBlobStore.DELETE_WHILE_WRITTEN.delayAfter(1)).isZero();
        assertThat(LocalFileBlobStore.DELETE_WHILE_WRITTEN.allowsRetry(4)).isTrue();
        assertThat(LocalFileBlobStore.DELETE_WHILE_WRITTEN.allowsRetry(5)).isFalse();
    }

    @Test
    void deleteRecursivelyRemovesTheDirectoryAndIsIdempotent() {
        store.put("job/chk-1/_metadata", new byte[1]);
        store.put("job/chk-1/deep/er/file", new byte[1]);
        store.put("job/chk-2/_metadata", new byte[1]);

        store.deleteRecursively("job/chk-1");
        store.deleteRecursively("job/chk-1");

        assertThat(root.resolve("job/chk-1")).doesNotExist();
        assertThat(store.list("job/")).containsExactly("job/chk-2/_metadata");
    }

    @Test
    void unfinishedWritesUnderAPrefixAreDiscardedAndAWriteStillRunningThereFails() throws Exception {
        store.put("job/shared/ck5-published.sst", new byte[] {1});
        java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.ExecutorService writers = java.util.concurrent.Executors.newFixedThreadPool(2);
        try {
            var ofFive = writers.submit(() -> store.put("job/shared/ck5-cut-off.sst", blockedContent(release)));
            var ofSix = writers.submit(() -> store.put("job/shared/ck6-running.sst", blockedContent(release)));
            org.awaitility.Awaitility.await("both writes under way").atMost(java.time.Duration.ofSeconds(30))
                    .until(() -> hiddenFiles(root.resolve("job/shared")).size() == 2);

            int discarded = store.discardUnfinishedWrites("job/shared/ck5-", key -> true);

            assertThat(discarded).isEqualTo(1);
            assertThat(hiddenFiles(root.resolve("job/shared"))).singleElement().asString().startsWith(".ck6-running.sst.");
            assertThat(store.discardUnfinishedWrites("job/shared/ck", key -> key.contains("ck7-")))
                    .as("the filter").isZero();
            release.countDown();
            assertThatThrownBy(ofFive::get).as("the write whose file was discarded fails")
                    .hasCauseInstanceOf(StorageException.class);
            ofSix.get();
            assertThat(store.list("job/")).containsExactly("job/shared/ck5-published.sst", "job/shared/ck6-running.sst");
            assertThat(hiddenFiles(root.resolve("job/shared"))).isEmpty();
        } finally {
            release.countDown();
            writers.shutdownNow();
        }
    }

    /** Two bytes, the second of which is handed out once {@code release} opens. */
    private static BlobContent blockedContent(java.util.concurrent.CountDownLatch release) {
        return new BlobContent() {
            @Override
            public long length() {
                return 2;
            }

            @Override
            public java.io.InputStream open(long offset, long length) {
                return new java.io.InputStream() {
                    private int read;

                    @Override
                    public int read() throws java.io.IOException {
                        if (read == 1) {
                            try {
                                release.await();
                            } catch (InterruptedException e) {
                                Thread.currentThread().interrupt();
                                throw new java.io.InterruptedIOException();
                            }
                        }
                        return read++ < 2 ? 7 : -1;
                    }
                };
            }
        };
    }

    private static java.util.List<String> hiddenFiles(Path dir) throws java.io.IOException {
        try (var files = Files.list(dir)) {
            return files.map(f -> f.getFileName().toString()).filter(n -> n.startsWith(".")).sorted().toList();
        }
    }

    @Test
    void aWriterThatCrashedMidPutLeavesNothingVisible() throws Exception {
        // What a writer leaves when it dies after creating its temp file, before the rename.
        Path dir = Files.createDirectories(root.resolve("job/chk-3"));
        Files.write(dir.resolve("._metadata.2f1c9e3a" + LocalFileBlobStore.IN_PROGRESS_SUFFIX), new byte[] {1, 2});
        Files.write(dir.resolve("_metadata" + LocalFileBlobStore.IN_PROGRESS_SUFFIX), new byte[] {1, 2});

        assertThat(store.exists("job/chk-3/_metadata")).isFalse();
        assertThatThrownBy(() -> store.get("job/chk-3/_metadata")).isInstanceOf(BlobNotFoundException.class);
        assertThat(store.exists("job/chk-3/_metadata" + LocalFileBlobStore.IN_PROGRESS_SUFFIX)).isFalse();
        assertThat(store.list("")).isEmpty();
        assertThat(store.list("job/chk-3/")).isEmpty();

        // A later complete put of the same blob is visible, and cleanup removes the leftovers.
        store.put("job/chk-3/_metadata", new byte[] {7});
        assertThat(store.list("job/")).containsExactly("job/chk-3/_metadata");
        store.deleteRecursively("job");
        assertThat(root.resolve("job")).doesNotExist();
    }

    @Test
    void putRejectsTheReservedTempSuffix() {
        assertThatThrownBy(() -> store.put("a/b" + LocalFileBlobStore.IN_PROGRESS_SUFFIX, new byte[1]))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("reserved");
    }

    @Test
    void pathsThatEscapeTheRootAreRejected() {
        assertThatThrownBy(() -> store.put("../escape", new byte[1])).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> store.get("/etc/passwd")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> store.list("a/../../")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void putFailureNamesLocationOperationAndPathAndKeepsCause() throws Exception {
        Files.write(root.resolve("plainfile"), new byte[1]);

        assertThatThrownBy(() -> store.put("plainfile/child", new byte[1]))
                .isInstanceOf(StorageException.class)
                .hasMessageContaining(store.describe())
                .hasMessageContaining("put plainfile/child")
                .hasCauseInstanceOf(java.io.IOException.class);
    }

    @Test
    void streamingPutOfHeaderAndFileReadsBackThroughOpenRead() throws Exception {
        byte[] body = new byte[200_000];
        new java.util.Random(3).nextBytes(body);
        Path local = Files.write(root.resolve("local.bin"), body);
        byte[] header = {9, 8, 7};

        store.put("job/chk-1/0-0.state", BlobContent.ofFile(header, local));

        byte[] expected = new byte[header.length + body.length];
        System.arraycopy(header, 0, expected, 0, header.length);
        System.arraycopy(body, 0, expected, header.length, body.length);
        try (java.io.InputStream in = store.openRead("job/chk-1/0-0.state")) {
            assertThat(in.readAllBytes()).isEqualTo(expected);
        }
        assertThat(store.get("job/chk-1/0-0.state")).isEqualTo(expected);
        try (Stream<Path> files = Files.list(root.resolve("job/chk-1"))) {
            assertThat(files).extracting(p -> p.getFileName().toString()).containsExactly("0-0.state");
        }
    }

    @Test
    void putFileLinksTheFileIntoPlaceWithoutCopyingItAndSurvivesTheDeletionOfTheCallersName() throws Exception {
        byte[] body = new byte[100_000];
        new java.util.Random(5).nextBytes(body);
        Path local = Files.write(root.resolve("spill.tmp"), body);

        store.putFile("job/chk-2/0-0.state", local);

        Path blob = root.resolve("job/chk-2/0-0.state");
        assertThat(Files.isSameFile(blob, local)).as("a hard link, not a copy").isTrue();
        assertThat(Files.getAttribute(blob, "unix:nlink")).isEqualTo(2);
        Files.delete(local); // the caller's name goes, the blob stays
        assertThat(store.get("job/chk-2/0-0.state")).isEqualTo(body);
        try (Stream<Path> files = Files.list(root.resolve("job/chk-2"))) {
            assertThat(files).extracting(p -> p.getFileName().toString()).as("no in-progress link left")
                    .containsExactly("0-0.state");
        }
    }

    @Test
    void putFileCopiesAFileOfAnotherFileSystem() throws Exception {
        Path otherFileSystem = Path.of("/dev/shm");
        org.junit.jupiter.api.Assumptions.assumeTrue(Files.isDirectory(otherFileSystem)
                && !Files.getFileStore(otherFileSystem).equals(Files.getFileStore(root)), "needs /dev/shm on a file"
                + " system of its own");
        Path local = Files.createTempFile(otherFileSystem, "sluice-test-", ".tmp");
        try {
            Files.write(local, new byte[] {1, 2, 3, 4});

            store.putFile("job/chk-3/0-0.state", local);

            Path blob = root.resolve("job/chk-3/0-0.state");
            assertThat(Files.isSameFile(blob, local)).isFalse();
            assertThat(store.get("job/chk-3/0-0.state")).containsExactly(1, 2, 3, 4);
            try (Stream<Path> files = Files.list(root.resolve("job/chk-3"))) {
                assertThat(files).extracting(p -> p.getFileName().toString()).containsExactly("0-0.state");
            }
        } finally {
            Files.deleteIfExists(local);
        }
    }

    @Test
    void putFileOfAMissingFileFailsNamingItAndLeavesNothing() {
        Path missing = root.resolve("gone.tmp");

        assertThatThrownBy(() -> store.putFile("job/chk-4/0-0.state", missing))
                .isInstanceOf(StorageException.class)
                .hasMessageContaining("put job/chk-4/0-0.state")
                .hasMessageContaining(missing.toString());
        assertThat(store.exists("job/chk-4/0-0.state")).isFalse();
    }

    @Test
    void aStreamingPutWhoseContentFailsLeavesNoBlobAndNoTempFile() throws Exception {
        store.put("a/b", new byte[] {1});
        BlobContent failing = new BlobContent() {
            @Override
            public long length() {
                return 100_000;
            }

            @Override
            public java.io.InputStream open(long offset, long length) {
                return new java.io.InputStream() {
                    private int delivered;

                    @Override
                    public int read() throws java.io.IOException {
                        if (delivered == 70_000) {
                            throw new java.io.IOException("disk gone");
                        }
                        delivered++;
                        return 5;
                    }
                };
            }
        };

        assertThatThrownBy(() -> store.put("a/b", failing))
                .isInstanceOf(StorageException.class)
                .hasMessageContaining("put a/b")
                .hasMessageContaining("disk gone")
                .hasRootCauseInstanceOf(java.io.IOException.class);
        assertThatThrownBy(() -> store.put("a/c", failing)).isInstanceOf(StorageException.class);

        assertThat(store.get("a/b")).as("the previous blob stays").containsExactly(1);
        assertThat(store.exists("a/c")).isFalse();
        try (Stream<Path> files = Files.list(root.resolve("a"))) {
            assertThat(files).extracting(p -> p.getFileName().toString()).containsExactly("b");
        }
    }

    @Test
    void aStreamingPutOfAFileThatShrankLeavesNoBlob() throws Exception {
        Path local = Files.write(root.resolve("local.bin"), new byte[1000]);
        BlobContent content = BlobContent.ofFile(new byte[0], local);
        Files.write(local, new byte[10]);

        assertThatThrownBy(() -> store.put("a/b", content))
                .isInstanceOf(StorageException.class)
                .hasMessageContaining("got shorter");
        assertThat(store.exists("a/b")).isFalse();
        try (Stream<Path> files = Files.list(root.resolve("a"))) {
            assertThat(files).isEmpty();
        }
    }

    @Test
    void openReadOfAMissingBlobOrAnUnfinishedWriteIsBlobNotFound() throws Exception {
        Path dir = Files.createDirectories(root.resolve("job/chk-3"));
        Files.write(dir.resolve("x" + LocalFileBlobStore.IN_PROGRESS_SUFFIX), new byte[] {1});

        assertThatThrownBy(() -> store.openRead("job/chk-9/_metadata"))
                .isInstanceOf(BlobNotFoundException.class)
                .hasMessageContaining(store.describe())
                .hasMessageContaining("get job/chk-9/_metadata");
        assertThatThrownBy(() -> store.openRead("job/chk-3/x" + LocalFileBlobStore.IN_PROGRESS_SUFFIX))
                .isInstanceOf(BlobNotFoundException.class);
        assertThatThrownBy(() -> store.openRead("job/chk-3")).isInstanceOf(BlobNotFoundException.class);
    }

    @Test
    void describeIsAFileUri() {
        assertThat(store.describe()).isEqualTo("file://" + root.toAbsolutePath().normalize());
    }
}
