package io.sluice.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.net.ConnectException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FaultInjectingBlobStoreTest {
    private static final Duration WAIT = Duration.ofSeconds(10);

    @TempDir
    Path root;

    private FaultInjectingBlobStore store;
    private ExecutorService io;

    @BeforeEach
    void setUp() {
        store = new FaultInjectingBlobStore(new LocalFileBlobStore(root));
        io = Executors.newCachedThreadPool();
    }

    @AfterEach
    void tearDown() throws InterruptedException {
        store.heal();
        io.shutdownNow();
        assertThat(io.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }

    @Test
    void withoutFaultsCallsPassThroughAndAreCounted() {
        store.put("a/b", new byte[] {1});

        assertThat(store.get("a/b")).containsExactly(1);
        assertThat(store.exists("a/b")).isTrue();
        assertThat(store.list("a/")).containsExactly("a/b");
        store.delete("a/b");
        store.deleteRecursively("a");
        assertThat(store.calls()).isEqualTo(6);
        assertThat(store.describe()).isEqualTo("file://" + root.toAbsolutePath().normalize());
        assertThat(store.calls()).as("describe is not a call").isEqualTo(6);
    }

    @Test
    void streamingPutsAndOpenedReadsAreCountedAndFaultedAsPutsAndGets() throws Exception {
        store.put("a/b", BlobContent.of(new byte[] {1, 2}));
        try (java.io.InputStream in = store.openRead("a/b")) {
            assertThat(in.readAllBytes()).containsExactly(1, 2);
        }
        assertThat(store.calls()).isEqualTo(2);
        assertThat(store.reads()).isEqualTo(1);
        assertThat(store.readsInFlight()).isZero();
        assertThat(store.maxReadsInFlight()).isEqualTo(1);

        store.refuseConnections();
        assertThatThrownBy(() -> store.openRead("a/b"))
                .isInstanceOf(StorageException.class)
                .hasMessageContaining("get a/b")
                .cause().isInstanceOf(ConnectException.class);
        assertThatThrownBy(() -> store.put("a/c", BlobContent.of(new byte[1])))
                .isInstanceOf(StorageException.class)
                .hasMessageContaining("put a/c");
        assertThat(root.resolve("a/c")).as("a refused put writes nothing").doesNotExist();
        assertThat(store.calls()).isEqualTo(4);
        assertThat(store.reads()).isEqualTo(2);

        store.heal();
        store.failAfter(0);
        assertThatThrownBy(() -> store.openRead("a/b")).hasMessageContaining("failAfter exhausted");
        store.heal();
        try (java.io.InputStream in = store.openRead("a/b")) {
            assertThat(in.readAllBytes()).containsExactly(1, 2);
        }
    }

    @Test
    void refusedConnectionsFailWithConnectExceptionCauseUntilHealed() {
        store.put("a/b", new byte[] {1});
        store.refuseConnections();

        assertThatThrownBy(() -> store.get("a/b"))
                .isInstanceOf(StorageException.class)
                .hasMessageContaining("Connection refused")
                .hasMessageContaining(store.describe())
                .hasMessageContaining("get a/b")
                .cause().isInstanceOf(ConnectException.class).hasMessage("Connection refused");
        assertThatThrownBy(() -> store.put("a/c", new byte[1])).hasMessageContaining("Connection refused");
        assertThat(root.resolve("a/c")).as("a refused put writes nothing").doesNotExist();

        store.heal();
        assertThat(store.get("a/b")).containsExactly(1);
    }

    @Test
    void failAfterTwoPassesTwoCallsThenFailsUntilHealed() {
        store.failAfter(2);

        store.put("a/1", new byte[1]);
        store.put("a/2", new byte[1]);
        assertThatThrownBy(() -> store.put("a/3", new byte[1]))
                .isInstanceOf(StorageException.class)
                .hasMessageContaining("put a/3");
        assertThatThrownBy(() -> store.exists("a/1")).isInstanceOf(StorageException.class);
        assertThat(root.resolve("a/3")).doesNotExist();

        store.heal();
        assertThat(store.exists("a/1")).isTrue();
        assertThat(store.calls()).isEqualTo(5);
    }

    @Test
    void latencyDelaysEveryCall() {
        store.setLatency(Duration.ofMillis(200));

        long start = System.nanoTime();
        store.exists("a");
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(200));

        store.setLatency(Duration.ZERO);
        assertThat(store.exists("a")).isFalse();
    }

    @Test
    void latencyIsInterruptible() throws Exception {
        store.setLatency(Duration.ofMinutes(5));
        AtomicBoolean interruptFlagKept = new AtomicBoolean();
        Future<?> call = io.submit(() -> {
            try {
                store.get("a");
            } finally {
                interruptFlagKept.set(Thread.currentThread().isInterrupted());
            }
            return null;
        });
        await().atMost(WAIT).until(() -> store.calls() == 1);

        call.cancel(true);

        await().atMost(WAIT).untilTrue(interruptFlagKept);
    }

    @Test
    void readLatencyDelaysOnlyGets() throws Exception {
        store.setReadLatency(Duration.ofMinutes(5));

        // Not delayed: each would take five minutes otherwise.
        io.submit(() -> store.put("a/b", new byte[] {7})).get(10, TimeUnit.SECONDS);
        assertThat(io.submit(() -> store.exists("a/b")).get(10, TimeUnit.SECONDS)).isTrue();
        assertThat(io.submit(() -> store.list("a/")).get(10, TimeUnit.SECONDS)).containsExactly("a/b");

        AtomicReference<Throwable> failure = new AtomicReference<>();
        Future<?> read = io.submit(() -> {
            try {
                store.get("a/b");
            } catch (Throwable t) {
                failure.set(t);
            }
        });
        await().atMost(WAIT).until(() -> store.calls() == 4);
        assertThat(read).as("the read waits out its latency").isNotDone();

        read.cancel(true);
        await().atMost(WAIT).untilAsserted(() -> assertThat(failure.get()).isInstanceOf(StorageException.class)
                .hasMessageContaining("read latency").hasMessageContaining("get a/b")
                .hasCauseInstanceOf(InterruptedException.class));
    }

    @Test
    void readLatencyAddsToEveryGetUntilHealed() throws Exception {
        store.put("a/b", new byte[] {7});
        store.setReadLatency(Duration.ofMillis(200));

        long start = System.nanoTime();
        assertThat(store.get("a/b")).containsExactly(7);
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(200));

        store.setReadLatency(Duration.ofMinutes(5));
        store.heal();
        assertThat(io.submit(() -> store.get("a/b")).get(10, TimeUnit.SECONDS)).as("heal removes the read latency")
                .containsExactly(7);
        assertThatThrownBy(() -> store.setReadLatency(Duration.ofMillis(-1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("read latency");
    }

    @Test
    void hungCallBlocksUntilReleased() throws Exception {
        store.put("a/b", new byte[] {5});
        store.hang();

        Future<byte[]> call = io.submit(() -> store.get("a/b"));
        await().atMost(WAIT).until(() -> store.blockedCalls() == 1);
        assertThat(call).isNotDone();

        store.release();

        assertThat(call.get(10, TimeUnit.SECONDS)).containsExactly(5);
        assertThat(store.blockedCalls()).isZero();
        assertThat(store.get("a/b")).as("after release, calls no longer hang").containsExactly(5);
    }

    @Test
    void healReleasesHungCalls() throws Exception {
        store.hang();
        Future<Boolean> call = io.submit(() -> store.exists("a"));
        await().atMost(WAIT).until(() -> store.blockedCalls() == 1);

        store.heal();

        assertThat(call.get(10, TimeUnit.SECONDS)).isFalse();
    }

    @Test
    void interruptingAHungCallEndsItWithStorageExceptionAndKeepsTheInterruptFlag() throws Exception {
        store.hang();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        AtomicBoolean interruptFlagKept = new AtomicBoolean();
        Thread caller = new Thread(() -> {
            try {
                store.get("job/chk-7/_metadata");
            } catch (Throwable t) {
                failure.set(t);
                interruptFlagKept.set(Thread.currentThread().isInterrupted());
            }
        }, "hung-caller");
        caller.start();
        await().atMost(WAIT).until(() -> store.blockedCalls() == 1);

        caller.interrupt();
        caller.join(WAIT.toMillis());

        assertThat(caller.isAlive()).isFalse();
        assertThat(failure.get()).isInstanceOf(StorageException.class)
                .hasMessageContaining("interrupted")
                .hasMessageContaining("get job/chk-7/_metadata")
                .hasCauseInstanceOf(InterruptedException.class);
        assertThat(interruptFlagKept).isTrue();
        assertThat(store.blockedCalls()).isZero();
    }

    @Test
    void faultsCanBeSwitchedWhileCallsAreInFlight() throws Exception {
        store.hang();
        CompletableFuture<Boolean> call = CompletableFuture.supplyAsync(() -> store.exists("x"), io);
        await().atMost(WAIT).until(() -> store.blockedCalls() == 1);

        store.refuseConnections();
        store.release();

        assertThatThrownBy(() -> call.get(10, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class)
                .hasRootCauseInstanceOf(ConnectException.class);
    }
}
