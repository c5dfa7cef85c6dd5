package io.sluice.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sluice.rpc.DedicatedMainThreadExecutor;
import io.sluice.rpc.MainThreadViolationException;
import io.sluice.rpc.MainThreads;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class InstrumentedBlobStoreTest {
    @TempDir
    Path root;

    private SimpleMeterRegistry registry;
    private FaultInjectingBlobStore faults;
    private InstrumentedBlobStore store;

    @BeforeEach
    void setUp() {
        registry = new SimpleMeterRegistry();
        faults = new FaultInjectingBlobStore(new LocalFileBlobStore(root));
        store = new InstrumentedBlobStore(faults, registry, "checkpoints");
    }

    @Test
    void countsEachOperationKindSeparately() {
        store.put("a/1", new byte[1]);
        store.put("a/2", new byte[1]);
        store.get("a/1");
        store.exists("a/1");
        store.list("a/");
        store.delete("a/1");
        store.deleteRecursively("a");

        assertThat(store.count(BlobOp.PUT)).isEqualTo(2);
        assertThat(store.count(BlobOp.GET)).isEqualTo(1);
        assertThat(store.count(BlobOp.EXISTS)).isEqualTo(1);
        assertThat(store.count(BlobOp.LIST)).isEqualTo(1);
        assertThat(store.count(BlobOp.DELETE)).isEqualTo(2);
        for (BlobOp op : BlobOp.values()) {
            assertThat(store.failures(op)).isZero();
        }
        assertThat(registry.get(InstrumentedBlobStore.REQUESTS_METRIC)
                .tags("store", "checkpoints", "operation", "put", "outcome", "success").counter().count()).isEqualTo(2.0);
        assertThat(registry.get(InstrumentedBlobStore.LATENCY_METRIC)
                .tags("store", "checkpoints", "operation", "delete").timer().count()).isEqualTo(2);
    }

    @Test
    void failuresAreCountedAndRethrown() {
        assertThatThrownBy(() -> store.get("missing")).isInstanceOf(BlobNotFoundException.class);
        faults.refuseConnections();
        assertThatThrownBy(() -> store.put("a", new byte[1])).hasMessageContaining("Connection refused");

        assertThat(store.count(BlobOp.GET)).isEqualTo(1);
        assertThat(store.failures(BlobOp.GET)).isEqualTo(1);
        assertThat(store.failures(BlobOp.PUT)).isEqualTo(1);
        assertThat(registry.get(InstrumentedBlobStore.REQUESTS_METRIC)
                .tags("store", "checkpoints", "operation", "put", "outcome", "failure").counter().count()).isEqualTo(1.0);
        assertThat(registry.get(InstrumentedBlobStore.REQUESTS_METRIC)
                .tags("store", "checkpoints", "operation", "put", "outcome", "success").counter().count()).isZero();
    }

    @Test
    void streamingPutsAndOpenedReadsCountAsPutsAndGets() throws Exception {
        store.put("a/1", BlobContent.of(new byte[] {1, 2}));
        try (java.io.InputStream in = store.openRead("a/1")) {
            assertThat(in.readAllBytes()).containsExactly(1, 2);
        }
        assertThatThrownBy(() -> store.openRead("missing")).isInstanceOf(BlobNotFoundException.class);

        assertThat(store.count(BlobOp.PUT)).isEqualTo(1);
        assertThat(store.count(BlobOp.GET)).isEqualTo(2);
        assertThat(store.failures(BlobOp.GET)).isEqualTo(1);
        assertThat(registry.get(InstrumentedBlobStore.LATENCY_METRIC)
                .tags("store", "checkpoints", "operation", "put").timer().count()).isEqualTo(1);
    }

    @Test
    void describeIsTheDelegatesLocation() {
        assertThat(store.describe()).isEqualTo(faults.describe());
    }

    @Test
    void callFromAMainThreadFailsWhenTheGuardIsOn() throws Exception {
        boolean previous = MainThreads.isGuardEnabled();
        MainThreads.setGuardEnabled(true);
        try (DedicatedMainThreadExecutor main = new DedicatedMainThreadExecutor("jobmaster-test")) {
            CompletableFuture<byte[]> onMain = CompletableFuture.supplyAsync(() -> store.get("job/chk-7/_metadata"), main);

            assertThatThrownBy(() -> onMain.get(10, TimeUnit.SECONDS))
                    .isInstanceOf(ExecutionException.class)
                    .cause().isInstanceOf(MainThreadViolationException.class)
                    .hasMessageContaining("jobmaster-test")
                    .hasMessageContaining("storage get job/chk-7/_metadata");
            assertThat(faults.calls()).as("the store was never reached").isZero();
            assertThat(store.count(BlobOp.GET)).isZero();

            // The same call off the main thread reaches the store.
            assertThatThrownBy(() -> store.get("job/chk-7/_metadata")).isInstanceOf(BlobNotFoundException.class);
            assertThat(faults.calls()).isEqualTo(1);
        } finally {
            MainThreads.setGuardEnabled(previous);
        }
    }
}
