package io.sluice.storage.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sluice.checkpoint.CheckpointStorage;
import io.sluice.config.Configuration;
import io.sluice.config.IllegalConfigurationException;
import io.sluice.graph.JobId;
import io.sluice.rpc.MainThreadViolationException;
import io.sluice.rpc.MainThreads;
import io.sluice.storage.BlobContent;
import io.sluice.storage.BlobNotFoundException;
import io.sluice.storage.BlobStore;
import io.sluice.storage.BlobStores;
import io.sluice.storage.StorageException;
import io.sluice.storage.s3.testing.TcpFaultProxy;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.s3.S3Client;

/** {@link S3BlobStore} against a real S3 server in this JVM (S3Proxy), directly and through a {@link TcpFaultProxy}. */
class S3BlobStoreTest {
    private static final long MIB = 1024 * 1024;
    private static S3ProxyServer server;
    private static int run;

    private final List<AutoCloseable> toClose = new ArrayList<>();
    private String location;

    @BeforeAll
    static void startServer() throws Exception {
        server = S3ProxyServer.start("bucket");
    }

    @AfterAll
    static void stopServer() throws Exception {
        server.close();
    }

    @BeforeEach
    void freshPrefix() {
        location = "s3://bucket/test-" + (++run);
    }

    @AfterEach
    void closeAll() throws Exception {
        for (AutoCloseable c : toClose) {
            c.close();
        }
    }

    private S3BlobStore store(Configuration conf) {
        S3BlobStore s = new S3BlobStore(location, conf);
        toClose.add(s);
        return s;
    }

    private S3BlobStore store() {
        return store(S3ProxyServer.clientConfiguration(server.endpoint()));
    }

    private TcpFaultProxy proxy() throws Exception {
        TcpFaultProxy p = new TcpFaultProxy("127.0.0.1", server.port());
        toClose.add(p);
        return p;
    }

    @Test
    void putGetExistsDeleteRoundTrip() {
        S3BlobStore s = store();
        assertThat(s.describe()).isEqualTo(location);
        assertThat(s.exists("job/chk-1/_metadata")).isFalse();
        s.put("job/chk-1/_metadata", new byte[] {1, 2, 3});
        assertThat(s.exists("job/chk-1/_metadata")).isTrue();
        assertThat(s.get("job/chk-1/_metadata")).containsExactly(1, 2, 3);
        s.put("job/chk-1/_metadata", new byte[] {4});
        assertThat(s.get("job/chk-1/_metadata")).containsExactly(4);
        s.put("empty", new byte[0]);
        assertThat(s.get("empty")).isEmpty();
        s.delete("job/chk-1/_metadata");
        s.delete("job/chk-1/_metadata"); // idempotent
        assertThat(s.exists("job/chk-1/_metadata")).isFalse();
    }

    @Test
    void missingBlobIsBlobNotFoundNamingLocationAndPath() {
        S3BlobStore s = store();
        assertThatThrownBy(() -> s.get("job/chk-9/_metadata"))
                .isInstanceOf(BlobNotFoundException.class)
                .hasMessageContaining("Checkpoint storage " + location + " has no blob during get job/chk-9/_metadata");
    }

    @Test
    void listFollowsContinuationTokensAcrossPages() {
        S3BlobStore s = store(S3ProxyServer.clientConfiguration(server.endpoint()).set(S3Options.LIST_PAGE_SIZE, 7));
        List<String> expected = new ArrayList<>();
        for (int i = 0; i < 53; i++) {
            String p = String.format("job/chk-%03d/state", i);
            s.put(p, new byte[] {(byte) i});
            expected.add(p);
        }
        s.put("jobx/other", new byte[1]);
        s.put("other/x", new byte[1]);
        long callsBefore = s.apiCalls();
        assertThat(s.list("job/")).containsExactlyElementsOf(expected);
        assertThat(s.apiCalls() - callsBefore).as("pages of 7 keys").isEqualTo(8);
        assertThat(s.list("job")).hasSize(54);
        assertThat(s.list("")).hasSize(55);
        assertThat(s.list("nothing/")).isEmpty();
    }

    @Test
    void prefixesOfTwoLocationsDoNotMix() {
        S3BlobStore a = store();
        S3BlobStore b = new S3BlobStore(location + "-other", S3ProxyServer.clientConfiguration(server.endpoint()));
        toClose.add(b);
        a.put("k", new byte[] {1});
        b.put("k", new byte[] {2});
        assertThat(a.get("k")).containsExactly(1);
        assertThat(b.list("")).containsExactly("k");
        b.deleteRecursively("");
        assertThat(a.get("k")).containsExactly(1);
    }

    @Test
    void largeBlobGoesUpInPartsAndReadsBackWhole() {
        S3BlobStore s = store(S3ProxyServer.clientConfiguration(server.endpoint())
                .set(S3Options.MULTIPART_THRESHOLD, 5 * MIB).set(S3Options.PART_SIZE, 5 * MIB));
        byte[] data = new byte[(int) (11 * MIB + 123)];
        new Random(7).nextBytes(data);
        long before = s.apiCalls();
        s.put("job/chk-1/0-0.state", data);
        // create + 3 parts + complete
        assertThat(s.apiCalls() - before).isEqualTo(5);
        assertThat(s.get("job/chk-1/0-0.state")).isEqualTo(data);
        assertThat(s.list("job/")).containsExactly("job/chk-1/0-0.state");
    }

    @Test
    void aStateFileFromALocalFileGoesUpInPartsAndStreamsBackThroughOpenTaskState() throws Exception {
        S3BlobStore s = store(S3ProxyServer.clientConfiguration(server.endpoint())
                .set(S3Options.MULTIPART_THRESHOLD, 5 * MIB).set(S3Options.PART_SIZE, 5 * MIB));
        CheckpointStorage storage = new CheckpointStorage(s, new SimpleMeterRegistry());
        byte[] payload = new byte[(int) (11 * MIB + 321)];
        new Random(8).nextBytes(payload);
        Path local = Files.createTempFile("s3-state", ".snapshot");
        toClose.add(() -> Files.deleteIfExists(local));
        Files.write(local, payload);
        JobId job = JobId.of("1a2b3c4d5e6f708192a3b4c5d6e7f809");

        long before = s.apiCalls();
        String path = storage.streams().writeTaskState(job, 4, 2, 1, local);

        // create + 3 parts (header and file in one stream cut into parts) + complete
        assertThat(s.apiCalls() - before).isEqualTo(5);
        assertThat(path).isEqualTo(job + "/chk-4/2-1.state");
        try (InputStream in = storage.streams().open(path, payload.length)) {
            assertThat(in.readAllBytes()).isEqualTo(payload);
        }
        assertThat(storage.readTaskState(path)).isEqualTo(payload);
        Path target = Files.createTempFile("s3-state", ".restored");
        toClose.add(() -> Files.deleteIfExists(target));
        storage.streams().download(path, target);
        assertThat(Files.readAllBytes(target)).isEqualTo(payload);
    }

    @Test
    void aSpilledSnapshotFramedAsAStateFileGoesUpAsItIsInParts() throws Exception {
        S3BlobStore s = store(S3ProxyServer.clientConfiguration(server.endpoint())
                .set(S3Options.MULTIPART_THRESHOLD, 5 * MIB).set(S3Options.PART_SIZE, 5 * MIB));
        CheckpointStorage storage = new CheckpointStorage(s, new SimpleMeterRegistry());
        byte[] payload = new byte[(int) (11 * MIB + 321)];
        new Random(9).nextBytes(payload);
        Path framed = Files.createTempFile("s3-state", ".spilled");
        toClose.add(() -> Files.deleteIfExists(framed));
        try (java.io.OutputStream out = Files.newOutputStream(framed)) {
            io.sluice.checkpoint.FramedStateFile.reserveHeader(out);
            out.write(payload);
        }
        java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
        crc.update(payload);
        io.sluice.checkpoint.FramedStateFile.finish(framed, payload.length, (int) crc.getValue());
        JobId job = JobId.of("1a2b3c4d5e6f708192a3b4c5d6e7f809");

        long before = s.apiCalls();
        String path = storage.streams().writeFramedTaskState(job, 5, 2, 1, framed);

        assertThat(s.apiCalls() - before).as("create + 3 parts + complete").isEqualTo(5);
        assertThat(s.get(path)).as("stored as it is").isEqualTo(Files.readAllBytes(framed));
        try (InputStream in = storage.streams().open(path, payload.length)) {
            assertThat(in.readAllBytes()).isEqualTo(payload);
        }
    }

    @Test
    void aStreamedPutBelowTheThresholdIsOnePutAndReadsBackAsAStream() throws Exception {
        S3BlobStore s = store();
        long before = s.apiCalls();
        s.put("job/chk-1/x", BlobContent.of(new byte[] {5, 6, 7}));
        assertThat(s.apiCalls() - before).isEqualTo(1);
        try (InputStream in = s.openRead("job/chk-1/x")) {
            assertThat(in.readAllBytes()).containsExactly(5, 6, 7);
        }
    }

    @Test
    void aContentThatCannotBeReadFailsThePutAndPublishesNothing() {
        S3BlobStore s = store(S3ProxyServer.clientConfiguration(server.endpoint())
                .set(S3Options.MULTIPART_THRESHOLD, 5 * MIB).set(S3Options.PART_SIZE, 5 * MIB));
        BlobContent failing = new BlobContent() {
            @Override
            public long length() {
                return 6 * MIB;
            }

            @Override
            public InputStream open(long offset, long length) throws java.io.IOException {
                throw new java.io.IOException("local disk gone");
            }
        };

        assertThatThrownBy(() -> s.put("job/chk-1/big", failing))
                .isInstanceOf(StorageException.class)
                .hasMessageContaining("put job/chk-1/big");
        assertThat(s.exists("job/chk-1/big")).isFalse();
    }

    @Test
    void aConnectionDroppedWhileAnOpenedObjectIsReadIsAnIOExceptionNamingThePath() throws Exception {
        byte[] data = new byte[(int) (24 * MIB)]; // more than socket buffers hold, so the drop cuts the body
        new Random(9).nextBytes(data);
        // Written directly in S3Proxy's store: this PUT is not under test, and through HTTP a loaded CI machine had it
        // answered "HTTP 400" (2026-12-06).
        server.putObject("bucket", location.substring("s3://bucket/".length()) + "/job/chk-1/big", data);
        TcpFaultProxy proxy = proxy();
        S3BlobStore viaProxy = store(S3ProxyServer.clientConfiguration(proxy.httpEndpoint()));

        try (InputStream in = viaProxy.openRead("job/chk-1/big")) {
            assertThat(in.readNBytes(1000)).isEqualTo(java.util.Arrays.copyOf(data, 1000));
            proxy.dropConnections();
            assertThatThrownBy(in::readAllBytes)
                    .isInstanceOf(java.io.IOException.class)
                    .hasMessageContaining(location)
                    .hasMessageContaining("during get job/chk-1/big");
        }
    }

    @Test
    void openReadOfAMissingObjectIsBlobNotFound() {
        S3BlobStore s = store();
        assertThatThrownBy(() -> s.openRead("job/chk-9/1-0.state"))
                .isInstanceOf(BlobNotFoundException.class)
                .hasMessageContaining("Checkpoint storage " + location + " has no blob during get job/chk-9/1-0.state");
    }

    @Test
    void deleteRecursivelyBatchesDeletesAndKeepsSiblings() {
        S3BlobStore s = store(S3ProxyServer.clientConfiguration(server.endpoint())
                .set(S3Options.DELETE_BATCH_SIZE, 10));
        for (int i = 0; i < 35; i++) {
            s.put("job/chk-1/" + i + ".state", new byte[] {1});
        }
        s.put("job/chk-10/_metadata", new byte[] {1}); // a sibling that only shares the string prefix
        long before = s.apiCalls();
        s.deleteRecursively("job/chk-1");
        // list (1 page) + 4 batches of <= 10, then one more listing that finds nothing, then the listing of
        // multipart uploads under the prefix (none)
        assertThat(s.apiCalls() - before).isEqualTo(7);
        assertThat(s.batchDeleteSupported()).isTrue();
        assertThat(s.list("job/")).containsExactly("job/chk-10/_metadata");
        s.deleteRecursively("job/chk-1"); // idempotent
        // A blob exactly at the prefix goes too.
        s.put("job/chk-2", new byte[] {1});
        s.deleteRecursively("job/chk-2");
        assertThat(s.exists("job/chk-2")).isFalse();
    }

    /**
     * A multipart upload nobody completes or aborts any more (its create's answer lost on every attempt, its abort
     * failed) is no object: a deleted prefix kept it open, and S3 bills its parts, until 2026-12-06.
     */
    @Test
    void deleteRecursivelyAbortsTheMultipartUploadsLeftOpenUnderThePrefixAndKeepsSiblings() {
        S3BlobStore s = store();
        s.put("job/chk-1/0-0.state", new byte[] {1});
        try (S3Client raw = rawClient()) {
            String orphan = raw.createMultipartUpload(b -> b.bucket("bucket").key(key(s, "job/chk-1/1-0.state")))
                    .uploadId();
            String sibling = raw.createMultipartUpload(b -> b.bucket("bucket").key(key(s, "job/chk-10/0-0.state")))
                    .uploadId();
            assertThat(openUploads(raw, s)).containsExactlyInAnyOrder(orphan, sibling);

            s.deleteRecursively("job/chk-1");

            assertThat(openUploads(raw, s)).as("the sibling's upload is not under the prefix").containsExactly(sibling);
            assertThat(s.list("job/")).isEmpty();
        }
    }

    /**
     * What a task manager killed mid-upload leaves of a shared file above the multipart threshold: an upload with a
     * part and no completion, which no listing shows. Discarded by prefix and filter; objects and other uploads stay.
     */
    @Test
    void discardUnfinishedWritesAbortsTheOpenUploadsUnderThePrefixThatTheFilterAccepts() {
        S3BlobStore s = store();
        s.put("job/shared/ck5-published.sst", new byte[] {1});
        try (S3Client raw = rawClient()) {
            String cutOff = openUploadWithAPart(raw, key(s, "job/shared/ck5-0-0-cut-off.sst"));
            String ofSix = openUploadWithAPart(raw, key(s, "job/shared/ck6-0-0-running.sst"));
            String ofFifty = openUploadWithAPart(raw, key(s, "job/shared/ck50-0-0-other.sst"));

            assertThat(s.discardUnfinishedWrites("job/shared/ck5-", path -> true)).isEqualTo(1);
            assertThat(openUploads(raw, s)).doesNotContain(cutOff).containsExactlyInAnyOrder(ofSix, ofFifty);
            assertThat(s.discardUnfinishedWrites("job/shared/ck", path -> path.startsWith("job/shared/ck50-")))
                    .isEqualTo(1);
            assertThat(openUploads(raw, s)).containsExactly(ofSix);
            assertThat(s.list("job/")).containsExactly("job/shared/ck5-published.sst");
        }
    }

    private static String openUploadWithAPart(S3Client raw, String key) {
        String id = raw.createMultipartUpload(b -> b.bucket("bucket").key(key)).uploadId();
        raw.uploadPart(b -> b.bucket("bucket").key(key).uploadId(id).partNumber(1),
                software.amazon.awssdk.core.sync.RequestBody.fromBytes(new byte[] {1, 2, 3}));
        return id;
    }

    private static S3Client rawClient() {
        return S3Clients.build(S3ProxyServer.clientConfiguration(server.endpoint()), "the test's client");
    }

    private static String key(S3BlobStore s, String path) {
        return s.keyPrefix() + path;
    }

    private static List<String> openUploads(S3Client raw, S3BlobStore s) {
        return raw.listMultipartUploads(b -> b.bucket("bucket").prefix(s.keyPrefix())).uploads().stream()
                .map(software.amazon.awssdk.services.s3.model.MultipartUpload::uploadId).toList();
    }

    @Test
    void deleteRecursivelyOfMoreThanOneThousandKeysUsesSeveralRequests() throws Exception {
        S3BlobStore s = store();
        List<CompletableFuture<Void>> puts = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
            int part = t;
            puts.add(CompletableFuture.runAsync(() -> {
                for (int i = part; i < 1005; i += 4) {
                    s.put("big/" + i, new byte[] {1});
                }
            }));
        }
        CompletableFuture.allOf(puts.toArray(new CompletableFuture[0])).get(2, TimeUnit.MINUTES);
        assertThat(s.list("big/")).hasSize(1005);
        long before = s.apiCalls();
        s.deleteRecursively("big");
        // 2 list pages + 2 DeleteObjects (1000 + 6 keys incl. the prefix itself) + 1 final empty listing + the
        // listing of multipart uploads
        assertThat(s.apiCalls() - before).isEqualTo(6);
        assertThat(s.list("big/")).isEmpty();
    }

    @Test
    void aStoreWithoutDeleteObjectsFallsBackToSingleDeletes() throws Exception {
        try (S3ProxyServer strict = S3ProxyServer.start(false, "bucket");
             S3BlobStore s = new S3BlobStore(location, S3ProxyServer.clientConfiguration(strict.endpoint()))) {
            for (int i = 0; i < 5; i++) {
                s.put("job/chk-1/" + i, new byte[] {1});
            }
            s.deleteRecursively("job/chk-1");
            assertThat(s.batchDeleteSupported()).isFalse();
            assertThat(s.list("")).isEmpty();
        }
    }

    @Test
    void openedThroughBlobStoresWithItsConfiguration() {
        BlobStore s = BlobStores.open(location, S3ProxyServer.clientConfiguration(server.endpoint()));
        assertThat(s).isInstanceOf(S3BlobStore.class);
        toClose.add((S3BlobStore) s);
        s.put("a", new byte[] {9});
        assertThat(s.get("a")).containsExactly(9);
    }

    @Test
    void invalidOptionsNameKeyAndValue() {
        assertThatThrownBy(() -> new S3BlobStore(location, new Configuration().setString("s3.max-retries", "many")))
                .isInstanceOf(IllegalConfigurationException.class)
                .hasMessageContaining("s3.max-retries").hasMessageContaining("many");
        assertThatThrownBy(() -> new S3BlobStore(location, new Configuration().setString("s3.part-size", "1000")))
                .isInstanceOf(IllegalConfigurationException.class)
                .hasMessageContaining("s3.part-size").hasMessageContaining("1000").hasMessageContaining("5 MiB");
        assertThatThrownBy(() -> new S3BlobStore(location, new Configuration().setString("s3.endpont", "http://x")))
                .isInstanceOf(IllegalConfigurationException.class)
                .hasMessageContaining("Unknown S3 option 's3.endpont'");
        assertThatThrownBy(() -> new S3BlobStore(location, new Configuration().setString("s3.access-key", "a")))
                .isInstanceOf(IllegalConfigurationException.class)
                .hasMessageContaining("s3.secret-key");
        assertThatThrownBy(() -> new S3BlobStore("s3:///prefix", new Configuration()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("bucket");
    }

    @Test
    void systemPropertiesFillInUnsetOptions() {
        System.setProperty("sluice.s3.list-page-size", "3");
        try {
            assertThat(S3Options.effective(new Configuration()).get(S3Options.LIST_PAGE_SIZE)).isEqualTo(3);
            assertThat(S3Options.effective(new Configuration().set(S3Options.LIST_PAGE_SIZE, 5))
                    .get(S3Options.LIST_PAGE_SIZE)).isEqualTo(5);
        } finally {
            System.clearProperty("sluice.s3.list-page-size");
        }
    }

    @Test
    void missingBucketSaysSo() {
        S3BlobStore s = new S3BlobStore("s3://no-such-bucket/x", S3ProxyServer.clientConfiguration(server.endpoint()));
        toClose.add(s);
        assertThatThrownBy(() -> s.put("a", new byte[1]))
                .isInstanceOf(StorageException.class)
                .hasMessageContaining("s3://no-such-bucket/x")
                .hasMessageContaining("bucket 'no-such-bucket' does not exist")
                .hasMessageContaining("during put a");
    }

    @Test
    void refusedConnectionsBecomeABoundedStorageExceptionAndTheStoreWorksAfterHeal() throws Exception {
        TcpFaultProxy proxy = proxy();
        S3BlobStore s = store(S3ProxyServer.clientConfiguration(proxy.httpEndpoint()));
        s.put("k", new byte[] {1});
        proxy.refuseConnections();

        CompletableFuture<Throwable> call = CompletableFuture.supplyAsync(() -> {
            try {
                s.get("k");
                return null;
            } catch (Throwable t) {
                return t;
            }
        });
        Throwable error = call.get(30, TimeUnit.SECONDS); // returns, bounded by timeouts and retries
        assertThat(error).isInstanceOf(StorageException.class)
                .hasMessageStartingWith("Checkpoint storage " + location + " unreachable (Connection refused) during get k")
                .hasMessageContaining("4 attempts");
        assertThatThrownBy(() -> s.put("k2", new byte[1])).isInstanceOf(StorageException.class)
                .hasMessageContaining("Connection refused").hasMessageContaining("during put k2");
        assertThatThrownBy(() -> s.list("")).hasMessageContaining("Connection refused");

        proxy.heal();
        assertThat(s.get("k")).containsExactly(1);
        s.put("k2", new byte[] {2});
        assertThat(s.list("")).containsExactly("k", "k2");
    }

    @Test
    void aStoreOpenedAsHaStorageNamesThatRoleInItsErrors() throws Exception {
        TcpFaultProxy proxy = proxy();
        BlobStore ha = BlobStores.open(location, S3ProxyServer.clientConfiguration(proxy.httpEndpoint()),
                StorageException.HA_STORAGE);
        toClose.add((AutoCloseable) ha);
        assertThat(ha.role()).isEqualTo("HA storage");
        assertThatThrownBy(() -> ha.get("jars/missing.jar")).isInstanceOf(BlobNotFoundException.class)
                .hasMessageStartingWith("HA storage " + location + " has no blob during get jars/missing.jar");

        proxy.refuseConnections();
        CompletableFuture<Throwable> call = CompletableFuture.supplyAsync(() -> {
            try {
                ha.get("k");
                return null;
            } catch (Throwable t) {
                return t;
            }
        });
        assertThat(call.get(30, TimeUnit.SECONDS)).isInstanceOf(StorageException.class)
                .hasMessageStartingWith("HA storage " + location + " unreachable (Connection refused) during get k")
                .hasMessageContaining("4 attempts");
        assertThat(store().role()).isEqualTo("Checkpoint storage");
    }

    @Test
    void droppedConnectionsAreRetried() throws Exception {
        TcpFaultProxy proxy = proxy();
        S3BlobStore s = store(S3ProxyServer.clientConfiguration(proxy.httpEndpoint()));
        s.put("k", new byte[] {1});
        proxy.dropConnections();
        assertThat(s.get("k")).containsExactly(1);
    }

    @Test
    void aStalledEndpointTimesOutWithinTheCallTimeout() throws Exception {
        TcpFaultProxy proxy = proxy();
        S3BlobStore s = store(S3ProxyServer.clientConfiguration(proxy.httpEndpoint())
                .set(S3Options.API_CALL_ATTEMPT_TIMEOUT, Duration.ofMillis(300))
                .set(S3Options.API_CALL_TIMEOUT, Duration.ofSeconds(3)));
        s.put("k", new byte[] {1});
        proxy.stall();
        CompletableFuture<Throwable> call = CompletableFuture.supplyAsync(() -> {
            try {
                s.get("k");
                return null;
            } catch (Throwable t) {
                return t;
            }
        });
        Throwable error = call.get(30, TimeUnit.SECONDS);
        assertThat(error).isInstanceOf(StorageException.class).hasMessageContaining("timed out")
                .hasMessageContaining("during get k");
        proxy.heal();
        assertThat(s.get("k")).containsExactly(1);
    }

    @Test
    void latencyIsAddedButCallsSucceed() throws Exception {
        TcpFaultProxy proxy = proxy();
        S3BlobStore s = store(S3ProxyServer.clientConfiguration(proxy.httpEndpoint()));
        s.put("k", new byte[] {1});
        proxy.setLatency(Duration.ofMillis(50));
        long start = System.nanoTime();
        assertThat(s.get("k")).containsExactly(1);
        assertThat(System.nanoTime() - start).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(50));
    }

    @Test
    void callsFromAMainThreadAreRejected() throws Exception {
        S3BlobStore s = store();
        CompletableFuture<Throwable> r = new CompletableFuture<>();
        Thread t = new Thread(() -> {
            MainThreads.markCurrentThread("test-main");
            try {
                s.exists("k");
                r.complete(null);
            } catch (Throwable e) {
                r.complete(e);
            }
        });
        t.start();
        assertThat(r.get(10, TimeUnit.SECONDS)).isInstanceOf(MainThreadViolationException.class);
    }
}
