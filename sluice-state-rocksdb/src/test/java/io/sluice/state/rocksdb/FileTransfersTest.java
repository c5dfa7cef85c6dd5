package io.sluice.state.rocksdb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class FileTransfersTest {
    private static final Duration WAIT = Duration.ofSeconds(10);
    private final ExecutorService helpers = Executors.newCachedThreadPool();
    private final ExecutorService caller = Executors.newSingleThreadExecutor();

    @AfterEach
    void shutDown() {
        helpers.shutdownNow();
        caller.shutdownNow();
    }

    @Test
    void atMostTheParallelismRunsAtOnceAndTheResultsKeepTheItemsOrder() throws Exception {
        FileTransfers transfers = new FileTransfers(3, helpers);
        AtomicInteger running = new AtomicInteger();
        AtomicInteger mostAtOnce = new AtomicInteger();
        CountDownLatch gate = new CountDownLatch(1);
        List<Integer> items = IntStream.range(0, 8).boxed().toList();

        CompletableFuture<List<String>> result = CompletableFuture.supplyAsync(() -> transfers.map(items, i -> {
            mostAtOnce.accumulateAndGet(running.incrementAndGet(), Math::max);
            assertThat(gate.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
            running.decrementAndGet();
            return "file-" + i;
        }), caller);
        await().atMost(WAIT).until(() -> running.get() == 3);
        gate.countDown();

        assertThat(result.get(WAIT.toSeconds(), TimeUnit.SECONDS)).containsExactly("file-0", "file-1", "file-2",
                "file-3", "file-4", "file-5", "file-6", "file-7");
        assertThat(mostAtOnce.get()).as("three at a time: the caller and two helpers").isEqualTo(3);
    }

    @Test
    void aFailureStopsWhatHasNotStartedAndIsThrownOnceTheRunningTransfersEnded() throws Exception {
        FileTransfers transfers = new FileTransfers(2, helpers);
        Set<Integer> started = ConcurrentHashMap.newKeySet();
        AtomicReference<Thread> callerThread = new AtomicReference<>();
        CountDownLatch helperStarted = new CountDownLatch(1);
        CountDownLatch gate = new CountDownLatch(1);

        CompletableFuture<List<Integer>> result = CompletableFuture.supplyAsync(() -> {
            callerThread.set(Thread.currentThread());
            return transfers.map(List.of(0, 1, 2, 3, 4, 5), i -> {
                started.add(i);
                if (Thread.currentThread() == callerThread.get()) {
                    // The caller's transfer fails while the helper's still runs.
                    assertThat(helperStarted.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
                    throw new IOException("storage refused file " + i);
                }
                helperStarted.countDown();
                assertThat(gate.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
                return i;
            });
        }, caller);
        await().atMost(WAIT).until(() -> started.size() == 2);
        // The caller failed and waits (untimed) for the helper, or, were it not to wait, has thrown already.
        await().atMost(WAIT).until(() -> callerThread.get().getState() == Thread.State.WAITING);

        assertThat(result).as("the helper's file still transfers").isNotDone();
        gate.countDown();
        assertThatThrownBy(() -> result.get(WAIT.toSeconds(), TimeUnit.SECONDS))
                .hasCauseInstanceOf(UncheckedIOException.class).rootCause()
                .hasMessageStartingWith("storage refused file ");
        assertThat(started).as("nothing started after the failure").hasSize(2);
    }

    @Test
    void anInterruptOfTheCallerStopsWhatHasNotStartedAndStaysSet() throws Exception {
        FileTransfers transfers = new FileTransfers(2, helpers);
        Set<Integer> started = ConcurrentHashMap.newKeySet();
        CountDownLatch callersGate = new CountDownLatch(1);
        CountDownLatch helpersGate = new CountDownLatch(1);
        AtomicReference<Thread> callerThread = new AtomicReference<>();
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        CountDownLatch done = new CountDownLatch(1);
        caller.execute(() -> {
            callerThread.set(Thread.currentThread());
            try {
                transfers.map(List.of(0, 1, 2, 3), i -> {
                    started.add(i);
                    // a write that does not answer the interrupt
                    awaitIgnoringInterrupts(Thread.currentThread() == callerThread.get() ? callersGate : helpersGate);
                    return i;
                });
            } catch (RuntimeException e) {
                thrown.set(e);
                thrown.get().addSuppressed(new IllegalStateException("interrupted: " + Thread.interrupted()));
            } finally {
                done.countDown();
            }
        });
        await().atMost(WAIT).until(() -> started.size() == 2);

        callerThread.get().interrupt();
        callersGate.countDown();
        // The caller noticed the interrupt after its transfer and waits for the helper's (untimed, unlike the gate).
        await().atMost(WAIT).until(() -> callerThread.get().getState() == Thread.State.WAITING);
        helpersGate.countDown();

        assertThat(done.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
        assertThat(thrown.get()).isInstanceOf(UncheckedIOException.class)
                .hasCauseInstanceOf(InterruptedIOException.class);
        assertThat(thrown.get().getSuppressed()).extracting(Throwable::getMessage)
                .as("the caller's interrupt status is set again").contains("interrupted: true");
        assertThat(started).as("the two running finished, nothing else started").hasSize(2);
    }

    @Test
    void helpersThatCannotStartLeaveTheWorkToTheCaller() {
        FileTransfers transfers = new FileTransfers(4, r -> {
            throw new RejectedExecutionException("shut down");
        });
        Set<String> threads = ConcurrentHashMap.newKeySet();

        List<Integer> doubled = transfers.map(List.of(1, 2, 3), i -> {
            threads.add(Thread.currentThread().getName());
            return 2 * i;
        });

        assertThat(doubled).containsExactly(2, 4, 6);
        assertThat(threads).containsExactly(Thread.currentThread().getName());
    }

    private static void awaitIgnoringInterrupts(CountDownLatch gate) {
        boolean interrupted = false;
        while (true) {
            try {
                assertThat(gate.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }
}
