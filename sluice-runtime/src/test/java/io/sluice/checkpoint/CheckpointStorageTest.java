package io.sluice.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sluice.graph.JobId;
import io.sluice.storage.BlobNotFoundException;
import io.sluice.storage.FaultInjectingBlobStore;
import io.sluice.storage.LocalFileBlobStore;
import io.sluice.storage.StorageException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CheckpointStorageTest {
    @TempDir
    Path root;

    private final JobId job = JobId.of("1a2b3c4d5e6f708192a3b4c5d6e7f809");
    private SimpleMeterRegistry registry;
    private CheckpointStorage storage;

    @BeforeEach
    void setUp() {
        registry = new SimpleMeterRegistry();
        storage = new CheckpointStorage(new LocalFileBlobStore(root), registry);
    }

    @Test
    void usesTheDocumentedLayout() {
        String statePath = storage.writeTaskState(job, 5, 2, 1, new byte[] {1});

        assertThat(statePath).isEqualTo(job + "/chk-5/2-1.state");
        assertThat(storage.metadataPath(job, 5)).isEqualTo(job + "/chk-5/_metadata");
        assertThat(root.resolve(statePath)).isRegularFile();
        assertThat(storage.location()).isEqualTo("file://" + root.toAbsolutePath().normalize());
    }

    @Test
    void aCopyBetweenLocalDirectoriesIsAHardLinkAndAnyOtherStoreGetsAStreamedCheckedCopy() throws Exception {
        byte[] payload = new byte[100_000];
        new java.util.Random(12).nextBytes(payload);
        String path = storage.writeTaskState(job, 5, 2, 1, payload);
        CheckpointStorage local = new CheckpointStorage(new LocalFileBlobStore(root.resolve("savepoints")), registry);

        long linked = storage.streams().copyTo(path, local, "savepoint-1/2-1.state");

        Path original = root.resolve(path);
        Path copy = root.resolve("savepoints/savepoint-1/2-1.state");
        assertThat(Files.isSameFile(original, copy)).as("one file, two names").isTrue();
        assertThat(linked).isEqualTo(Files.size(original));
        Files.delete(original); // the checkpoint's copy is discarded after a savepoint
        assertThat(local.readTaskState("savepoint-1/2-1.state")).isEqualTo(payload);

        String second = storage.writeTaskState(job, 6, 2, 1, payload);
        io.sluice.storage.BlobStore noLocalFiles = new io.sluice.storage.BlobStore() { // as S3 is
            private final LocalFileBlobStore files = new LocalFileBlobStore(root.resolve("elsewhere"));

            @Override
            public void put(String p, byte[] data) {
                files.put(p, data);
            }

            @Override
            public byte[] get(String p) {
                return files.get(p);
            }

            @Override
            public boolean exists(String p) {
                return files.exists(p);
            }

            @Override
            public java.util.List<String> list(String prefix) {
                return files.list(prefix);
            }

            @Override
            public void delete(String p) {
                files.delete(p);
            }

            @Override
            public void deleteRecursively(String prefix) {
                files.deleteRecursively(prefix);
            }

            @Override
            public String describe() {
                return "elsewhere";
            }
        };
        CheckpointStorage elsewhere = new CheckpointStorage(noLocalFiles, registry);
        storage.streams().copyTo(second, elsewhere, "savepoint-2/2-1.state");
        assertThat(Files.isSameFile(root.resolve(second), root.resolve("elsewhere/savepoint-2/2-1.state"))).isFalse();
        assertThat(elsewhere.readTaskState("savepoint-2/2-1.state")).isEqualTo(payload);

        Path onDisk = root.resolve(second);
        byte[] corrupt = Files.readAllBytes(onDisk);
        corrupt[corrupt.length / 2] ^= 0x5a;
        Files.write(onDisk, corrupt);
        assertThatThrownBy(() -> storage.streams().copyTo(second, elsewhere, "savepoint-3/2-1.state"))
                .as("a streamed copy checks the file").isInstanceOf(CorruptStateFileException.class)
                .hasMessageContaining(second);
        assertThatThrownBy(() -> storage.streams().copyTo(job + "/chk-9/2-1.state", local, "savepoint-4/2-1.state"))
                .isInstanceOf(io.sluice.storage.BlobNotFoundException.class).hasMessageContaining("chk-9/2-1.state");
        assertThat(root.resolve("savepoints/savepoint-4")).as("nothing left beside a failed link")
                .satisfies(d -> assertThat(!Files.exists(d) || Files.list(d).findAny().isEmpty()).isTrue());
    }

    @Test
    void aFramedFileIsPublishedAsItIsReadsBackAsTheSameStateAndItsHeaderIsTakenAsWritten() throws Exception {
        byte[] payload = new byte[50_000];
        new java.util.Random(13).nextBytes(payload);
        java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
        crc.update(payload);
        Path local = framed(root.resolve("spilled"), payload, (int) crc.getValue());

        String path = storage.streams().writeFramedTaskState(job, 5, 2, 1, local);

        assertThat(Files.isSameFile(root.resolve(path), local)).as("linked, not copied").isTrue();
        assertThat(storage.readTaskState(path)).as("a version-2 header, whatever the length").isEqualTo(payload);
        try (java.io.InputStream in = storage.streams().open(path, payload.length)) {
            assertThat(in.readAllBytes()).isEqualTo(payload);
        }
        Path wrongCrc = framed(root.resolve("spilled-wrong"), payload, (int) crc.getValue() + 1);
        String wrong = storage.streams().writeFramedTaskState(job, 7, 2, 1, wrongCrc);
        assertThatThrownBy(() -> storage.readTaskState(wrong)).as("not computed again: a wrong one is stored")
                .isInstanceOf(CorruptStateFileException.class).hasMessageContaining("checksum");
        assertThatThrownBy(() -> FramedStateFile.finish(local, payload.length + 1, 0))
                .isInstanceOf(java.io.IOException.class).hasMessageContaining("its writer wrote 50001");
    }

    private static Path framed(Path file, byte[] payload, int crc32c) throws java.io.IOException {
        try (java.io.OutputStream out = Files.newOutputStream(file)) {
            FramedStateFile.reserveHeader(out);
            out.write(payload);
        }
        FramedStateFile.finish(file, payload.length, crc32c);
        return file;
    }

    @Test
    void taskStateRoundTrip() {
        String path = storage.writeTaskState(job, 5, 2, 1, new byte[] {1, 2, 3});

        assertThat(storage.readTaskState(path)).containsExactly(1, 2, 3);
    }

    @Test
    void aStateFileWrittenFromAFileIsTheSameFileAndReadsBackAsStreamAndArray() throws Exception {
        byte[] payload = new byte[300_000];
        new java.util.Random(11).nextBytes(payload);
        Path local = Files.write(root.resolve("local-snapshot"), payload);

        String path = storage.streams().writeTaskState(job, 5, 2, 1, local);
        String fromArray = storage.writeTaskState(job, 6, 2, 1, payload);

        assertThat(path).isEqualTo(job + "/chk-5/2-1.state");
        assertThat(Files.readAllBytes(root.resolve(path))).as("byte for byte what the array overload writes")
                .isEqualTo(Files.readAllBytes(root.resolve(fromArray)));
        assertThat(storage.stateWrites()).isEqualTo(2);
        try (InputStream in = storage.streams().open(path, payload.length)) {
            assertThat(in.readAllBytes()).isEqualTo(payload);
        }
        try (InputStream in = storage.streams().open(fromArray, -1)) {
            assertThat(in.readAllBytes()).isEqualTo(payload);
        }
        assertThat(storage.readTaskState(path)).isEqualTo(payload);
        assertThat(storage.stateReads()).isEqualTo(3);
        try (java.util.stream.Stream<Path> files = Files.list(root.resolve(job + "/chk-5"))) {
            assertThat(files).extracting(p -> p.getFileName().toString()).containsExactly("2-1.state");
        }
    }

    @Test
    void aFlippedByteInAStreamedStateFileIsCorruptOnReadNamingThePath() throws Exception {
        byte[] payload = new byte[100_000];
        new java.util.Random(12).nextBytes(payload);
        String path = storage.streams().writeTaskState(job, 5, 2, 1, Files.write(root.resolve("local"), payload));
        byte[] stored = Files.readAllBytes(root.resolve(path));
        stored[stored.length - 40_000] ^= 0x10;
        Files.write(root.resolve(path), stored);

        try (InputStream in = storage.streams().open(path, payload.length)) {
            assertThatThrownBy(in::readAllBytes).isInstanceOf(CorruptStateFileException.class)
                    .hasMessageContaining("State file " + path + " is corrupt")
                    .hasMessageContaining("checksum mismatch");
        }
        assertThatThrownBy(() -> storage.readTaskState(path)).isInstanceOf(CorruptStateFileException.class)
                .hasMessageContaining(path);
        Path target = root.resolve("downloads/restored");
        Files.createDirectories(target.getParent());
        assertThatThrownBy(() -> storage.streams().download(path, target)).isInstanceOf(CorruptStateFileException.class)
                .hasMessageContaining(path);
        try (java.util.stream.Stream<Path> files = Files.list(target.getParent())) {
            assertThat(files).as("no partial download, no temp file").isEmpty();
        }
    }

    @Test
    void aTruncatedStreamedStateFileIsCorruptAtItsEnd() throws Exception {
        String path = storage.streams().writeTaskState(job, 5, 2, 1, Files.write(root.resolve("local"), new byte[1000]));
        byte[] stored = Files.readAllBytes(root.resolve(path));
        Files.write(root.resolve(path), Arrays.copyOf(stored, 600));

        try (InputStream in = storage.streams().open(path, 1000)) {
            assertThatThrownBy(in::readAllBytes).isInstanceOf(CorruptStateFileException.class)
                    .hasMessageContaining(path).hasMessageContaining("truncated");
        }
    }

    @Test
    void aLengthOtherThanExpectedIsCorruptWhenOpening() throws Exception {
        String path = storage.streams().writeTaskState(job, 5, 2, 1, Files.write(root.resolve("local"), new byte[1000]));

        assertThatThrownBy(() -> storage.streams().open(path, 999)).isInstanceOf(CorruptStateFileException.class)
                .hasMessageContaining("State file " + path + " is corrupt")
                .hasMessageContaining("announces 1000 bytes of state, but the checkpoint expects 999");
        assertThatThrownBy(() -> storage.streams().open(job + "/chk-5/9-9.state", -1))
                .isInstanceOf(BlobNotFoundException.class);
    }

    @Test
    void sharedFilesAreStreamedUpAndDownloadedReplacingTheTarget() throws Exception {
        byte[] table = new byte[70_000];
        new java.util.Random(13).nextBytes(table);
        Path local = Files.write(root.resolve("000042.sst"), table);

        String path = storage.writeSharedFile(job, 5, 2, 1, "000042.sst", local);
        Path target = Files.createDirectories(root.resolve("restore")).resolve("000042.sst");
        Files.write(target, new byte[] {1}); // left over from an earlier attempt
        storage.streams().download(path, target);

        assertThat(Files.readAllBytes(target)).isEqualTo(table);
        try (java.util.stream.Stream<Path> files = Files.list(target.getParent())) {
            assertThat(files).extracting(p -> p.getFileName().toString()).containsExactly("000042.sst");
        }
        assertThat(storage.readTaskState(path)).isEqualTo(table);
    }

    @Test
    void aDownloadThatFailsMidwayIsAStorageFailureAndLeavesNoFile() throws Exception {
        String path = storage.writeSharedFile(job, 5, 2, 1, "000007.sst", Files.write(root.resolve("local"), new byte[200_000]));
        CheckpointStorage failing = new CheckpointStorage(new io.sluice.storage.ForwardingBlobStore(
                new LocalFileBlobStore(root)) {
            @Override
            public InputStream openRead(String p) {
                InputStream in = super.openRead(p);
                return new java.io.FilterInputStream(in) {
                    private int delivered;

                    @Override
                    public int read(byte[] b, int off, int len) throws java.io.IOException {
                        if (delivered > 100_000) {
                            throw new java.io.IOException("Connection reset");
                        }
                        int n = super.read(b, off, len);
                        delivered += Math.max(n, 0);
                        return n;
                    }
                };
            }
        }, registry);
        Path target = Files.createDirectories(root.resolve("restore")).resolve("000007.sst");

        assertThatThrownBy(() -> failing.streams().download(path, target))
                .isInstanceOf(StorageException.class)
                .hasMessageContaining("Connection reset")
                .hasMessageContaining("get " + path);
        try (java.util.stream.Stream<Path> files = Files.list(target.getParent())) {
            assertThat(files).as("no partial download, no temp file").isEmpty();
        }
    }

    @Test
    void aStateFileAtAnotherLocationIsOpenedThere() throws Exception {
        Path otherRoot = Files.createDirectories(root.resolve("other"));
        CheckpointStorage other = new CheckpointStorage(new LocalFileBlobStore(otherRoot), registry);
        String otherPath = other.streams().writeTaskState(job, 3, 1, 0, Files.write(root.resolve("local"), new byte[] {7, 8}));
        java.util.List<String> opened = new java.util.ArrayList<>();
        java.util.List<CheckpointStorage> openedStorages = new java.util.ArrayList<>();
        CheckpointStorage here = new CheckpointStorage(new LocalFileBlobStore(root.resolve("here")), registry,
                location -> {
                    opened.add(location);
                    CheckpointStorage s = new CheckpointStorage(io.sluice.storage.BlobStores.open(location), registry);
                    openedStorages.add(s);
                    return s;
                });

        String full = other.locationOf(otherPath);
        try (InputStream in = here.streams().open(full, 2)) {
            assertThat(in.readAllBytes()).containsExactly(7, 8);
        }
        assertThat(opened).containsExactly(full.substring(0, full.lastIndexOf('/')));
        assertThat(openedStorages.get(0).stateReads()).as("counted where it is read").isEqualTo(1);
    }

    @Test
    void aLocalFileThatCannotBeReadIsNamed() {
        Path missing = root.resolve("no-such-snapshot");
        assertThatThrownBy(() -> storage.streams().writeTaskState(job, 5, 2, 1, missing))
                .isInstanceOf(java.io.UncheckedIOException.class)
                .hasMessageContaining(missing.toString())
                .hasMessageContaining(job + "/chk-5/2-1.state");
        assertThat(storage.stateWrites()).isZero();
    }

    @Test
    void aCrashBetweenStateFilesAndMetadataLeavesNoCompletedCheckpoint() {
        writeCompleted(4);
        storage.writeTaskState(job, 5, 1, 0, new byte[] {1});
        storage.writeTaskState(job, 5, 1, 1, new byte[] {2});
        // ... the job manager dies here, before writing the metadata of checkpoint 5.

        assertThat(storage.listCheckpointIds(job)).containsExactly(4L);
        assertThatThrownBy(() -> storage.readMetadata(storage.metadataPath(job, 5)))
                .isInstanceOf(BlobNotFoundException.class)
                .hasMessageContaining(storage.metadataPath(job, 5));
    }

    @Test
    void metadataRoundTripEqualsTheOriginalWithItsPath() {
        CompletedCheckpoint cp = CheckpointMetadataSerializerTest.sample(job, 7);

        String path = storage.writeMetadata(cp);

        assertThat(path).isEqualTo(storage.metadataPath(job, 7));
        assertThat(storage.readMetadata(path)).isEqualTo(cp.withMetadataPath(path));
        assertThat(storage.writeMetadata(cp.withMetadataPath(path))).as("rewriting with its own path").isEqualTo(path);
    }

    @Test
    void writeMetadataRejectsAForeignMetadataPath() {
        CompletedCheckpoint cp = CheckpointMetadataSerializerTest.sample(job, 7).withMetadataPath("elsewhere/_metadata");

        assertThatThrownBy(() -> storage.writeMetadata(cp))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("elsewhere/_metadata")
                .hasMessageContaining(storage.metadataPath(job, 7));
    }

    @Test
    void listsOnlyCompletedCheckpointsAscending() {
        writeCompleted(10);
        writeCompleted(2);
        writeCompleted(9);
        storage.writeTaskState(job, 11, 1, 0, new byte[1]);
        storage.writeMetadata(CheckpointMetadataSerializerTest.sample(JobId.generate(), 3));

        assertThat(storage.listCheckpointIds(job)).containsExactly(2L, 9L, 10L);
        assertThat(storage.listCheckpointIds(JobId.generate())).isEmpty();
    }

    @Test
    void flippedByteInMetadataIsCorruptNamingThePath() throws Exception {
        String path = writeCompleted(7);
        Path file = root.resolve(path);
        byte[] data = Files.readAllBytes(file);
        data[data.length / 2] ^= 0x40;
        Files.write(file, data);

        assertThatThrownBy(() -> storage.readMetadata(path))
                .isInstanceOf(CorruptCheckpointException.class)
                .hasMessageContaining(path)
                .hasMessageContaining("checksum mismatch");
    }

    @Test
    void truncatedMetadataIsCorruptNamingThePath() throws Exception {
        String path = writeCompleted(7);
        Path file = root.resolve(path);
        byte[] data = Files.readAllBytes(file);
        Files.write(file, Arrays.copyOf(data, data.length - 5));

        assertThatThrownBy(() -> storage.readMetadata(path))
                .isInstanceOf(CorruptCheckpointException.class)
                .hasMessageContaining(path)
                .hasMessageContaining("truncated");
    }

    @Test
    void discardRemovesTheCheckpointDirectoryAndIsIdempotent() {
        writeCompleted(6);
        writeCompleted(7);

        storage.discard(job, 6);
        storage.discard(job, 6);

        assertThat(root.resolve(job + "/chk-6")).doesNotExist();
        assertThat(storage.listCheckpointIds(job)).containsExactly(7L);
        assertThat(storage.discards()).isEqualTo(2);
    }

    @Test
    void discardJobRemovesEverythingOfTheJobOnly() {
        writeCompleted(1);
        JobId other = JobId.generate();
        storage.writeMetadata(CheckpointMetadataSerializerTest.sample(other, 1));

        storage.discardJob(job);
        storage.discardJob(job);

        assertThat(root.resolve(job.value())).doesNotExist();
        assertThat(storage.listCheckpointIds(other)).containsExactly(1L);
    }

    @Test
    void countersMoveAsExpected() {
        String state = storage.writeTaskState(job, 1, 1, 0, new byte[1]);
        storage.readTaskState(state);
        storage.readTaskState(state);
        String meta = storage.writeMetadata(CheckpointMetadataSerializerTest.sample(job, 1));
        assertThat(storage.metadataReads()).isZero();

        storage.readMetadata(meta);
        storage.discard(job, 1);

        assertThat(storage.stateWrites()).isEqualTo(1);
        assertThat(storage.stateReads()).isEqualTo(2);
        assertThat(storage.metadataWrites()).isEqualTo(1);
        assertThat(storage.metadataReads()).isEqualTo(1);
        assertThat(storage.discards()).isEqualTo(1);
        assertThat(registry.get(CheckpointStorage.REQUESTS_METRIC).tag("kind", "state_read").counter().count())
                .isEqualTo(2.0);
        assertThat(registry.get(CheckpointStorage.REQUESTS_METRIC).tag("kind", "metadata_read").counter().count())
                .isEqualTo(1.0);
    }

    @Test
    void checkWritableSucceedsAndLeavesNoProbeBehind() throws Exception {
        storage.checkWritable();

        try (var files = Files.list(root)) {
            assertThat(files).isEmpty();
        }
    }

    @Test
    void checkWritableFailsNamingTheLocationWhenDirectoriesCannotBeCreated() throws Exception {
        // A root below a regular file cannot be created, even by root (who ignores permissions).
        Path plainFile = Files.write(root.resolve("not-a-directory"), new byte[1]);
        CheckpointStorage broken = new CheckpointStorage(new LocalFileBlobStore(plainFile.resolve("checkpoints")),
                registry);

        assertThatThrownBy(broken::checkWritable)
                .isInstanceOf(StorageException.class)
                .hasMessageStartingWith("Checkpoint directory " + broken.location() + " is not writable (")
                .hasMessageContaining("Choose a writable checkpoints.dir or fix its permissions.")
                .hasCauseInstanceOf(StorageException.class);
    }

    @Test
    void checkWritableFailsWhenTheStoreIsUnreachable() {
        FaultInjectingBlobStore faults = new FaultInjectingBlobStore(new LocalFileBlobStore(root));
        faults.refuseConnections();
        CheckpointStorage unreachable = new CheckpointStorage(faults, registry);

        assertThatThrownBy(unreachable::checkWritable)
                .isInstanceOf(StorageException.class)
                .hasMessageContaining(unreachable.location())
                .hasMessageContaining("Connection refused");
    }

    private String writeCompleted(long id) {
        storage.writeTaskState(job, id, 1, 0, new byte[] {(byte) id});
        return storage.writeMetadata(CheckpointMetadataSerializerTest.sample(job, id));
    }

    @Test
    void sharedUploadsAreFoundByTheIdOfTheCheckpointTheyWereMadeFor() throws Exception {
        Path local = Files.write(root.resolve("000009.sst"), new byte[] {7});
        String of4 = storage.writeSharedFile(job, 4, 2, 1, "000009.sst", local);
        String of40 = storage.writeSharedFile(job, 40, 2, 1, "000009.sst", local);
        String of5 = storage.writeSharedFile(job, 5, 3, 0, "000009.sst", local);
        // Named before the checkpoint id was part of the name (vertex 4, subtask 0): never an upload of checkpoint 4.
        String older = job.value() + "/shared/4-0-3b0c8e1e-0000-4000-8000-000000000000-000001.sst";
        storage.streams().put(older, local);
        assertThat(of4).startsWith(job.value() + "/shared/ck4-2-1-").endsWith("-000009.sst");

        // Up to 16 ids: one listing per id.
        assertThat(storage.listSharedUploads(job, 4, 4)).containsExactly(of4);
        assertThat(storage.listSharedUploads(job, 4, 5)).containsExactlyInAnyOrder(of4, of5);
        assertThat(storage.listSharedUploads(job, 6, 39)).as("34 ids: one listing of all, filtered").isEmpty();
        assertThat(storage.listSharedUploads(job, 1, 40)).containsExactlyInAnyOrder(of4, of5, of40);
        assertThat(storage.listSharedUploads(job, 5, 4)).isEmpty();
        assertThat(storage.listSharedUploads(JobId.of("ffffffffffffffffffffffffffffffff"), 1, 40)).isEmpty();
    }

    @Test
    void unfinishedSharedUploadsAreDiscardedByTheIdOfTheCheckpointTheyWereMadeFor() throws Exception {
        Path local = Files.write(root.resolve("000009.sst"), new byte[] {7});
        String published4 = storage.writeSharedFile(job, 4, 2, 1, "000009.sst", local);
        Path shared = root.resolve(job.value()).resolve("shared");
        java.util.function.LongFunction<Path> unfinished = id -> {
            try {
                return Files.write(shared.resolve(".ck" + id + "-2-1-" + java.util.UUID.randomUUID() + "-000010.sst."
                        + java.util.UUID.randomUUID() + io.sluice.storage.LocalFileBlobStore.IN_PROGRESS_SUFFIX),
                        new byte[] {1});
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        };
        Path of4 = unfinished.apply(4);
        Path of20 = unfinished.apply(20);
        Path of41 = unfinished.apply(41);
        Path of400 = unfinished.apply(400);

        assertThat(storage.discardUnfinishedSharedUploads(job, 4, 5)).as("up to 16 ids: per id").isEqualTo(1);
        assertThat(of4).doesNotExist();
        assertThat(storage.discardUnfinishedSharedUploads(job, 6, 40)).as("35 ids: once, filtered").isEqualTo(1);
        assertThat(of20).doesNotExist();
        assertThat(of41).as("above the range").exists();
        assertThat(of400).as("ck400 starts like ck40 but is not it").exists();
        assertThat(root.resolve(published4)).as("a published upload").exists();
        assertThat(storage.discardUnfinishedSharedUploads(job, 5, 4)).isZero();
    }

    @Test
    void checkpointDirectoriesWithFilesAreFoundById() throws Exception {
        Path local = Files.write(root.resolve("OPTIONS-000007"), new byte[] {7});
        storage.writePrivateFile(job, 4, 2, 1, "OPTIONS-000007", local);
        storage.writeTaskState(job, 40, 1, 0, new byte[] {1});
        storage.writeSharedFile(job, 5, 2, 1, "000009.sst", local); // shared: not in checkpoint 5's directory

        // Up to 16 ids: one listing per id.
        assertThat(storage.checkpointsWithFiles(job, 4, 4)).containsExactly(4L);
        assertThat(storage.checkpointsWithFiles(job, 5, 5)).as("only a shared upload").isEmpty();
        assertThat(storage.checkpointsWithFiles(job, 1, 16)).containsExactly(4L);
        assertThat(storage.checkpointsWithFiles(job, 6, 39)).as("34 ids: one listing of all, filtered").isEmpty();
        assertThat(storage.checkpointsWithFiles(job, 1, 40)).containsExactly(4L, 40L);
        assertThat(storage.checkpointsWithFiles(job, 5, 4)).isEmpty();
        assertThat(storage.checkpointsWithFiles(JobId.of("ffffffffffffffffffffffffffffffff"), 1, 40)).isEmpty();
    }

    @Test
    void theCheckpointIdOfASharedFileIsReadFromItsName() {
        String prefix = "j/shared/" + SharedStateRegistry.UPLOAD_PREFIX;
        assertThat(SharedStateRegistry.uploadedFor("j/shared/ck12-2-1-u-000001.sst", prefix)).isEqualTo(12);
        assertThat(SharedStateRegistry.uploadedFor("j/shared/ck0-2-1-u-000001.sst", prefix)).isZero();
        assertThat(SharedStateRegistry.uploadedFor("j/shared/ck-2-1-u-000001.sst", prefix)).isEqualTo(-1);
        assertThat(SharedStateRegistry.uploadedFor("j/shared/ckx1-2-1-u-000001.sst", prefix)).isEqualTo(-1);
        assertThat(SharedStateRegistry.uploadedFor("j/shared/ck12", prefix)).as("no '-' after it").isEqualTo(-1);
        assertThat(SharedStateRegistry.uploadedFor("j/shared/12-2-1-u-000001.sst", prefix)).isEqualTo(-1);
        assertThat(SharedStateRegistry.uploadedFor("j/shared/ck9999999999999999999-2", prefix))
                .as("19 digits: not an id").isEqualTo(-1);
    }
}
