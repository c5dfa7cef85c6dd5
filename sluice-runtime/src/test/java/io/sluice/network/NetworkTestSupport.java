package io.sluice.network;

import static org.awaitility.Awaitility.await;

import io.sluice.graph.JobId;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/** Threads and fixtures shared by the data-plane tests. */
final class NetworkTestSupport {
    static final JobId JOB = JobId.of("0123456789abcdef0123456789abcdef");

    private NetworkTestSupport() {}

    @FunctionalInterface
    interface Body {
        void run() throws Exception;
    }

    /** A started thread and the outcome of its body. */
    record Running(Thread thread, CompletableFuture<Void> outcome) {
        /** Waits (bounded) until the thread parks, blocked on a lock condition. */
        void awaitBlocked() {
            await().atMost(Duration.ofSeconds(10)).until(() -> thread.getState() == Thread.State.WAITING);
        }
    }

    static Running start(String name, Body body) {
        CompletableFuture<Void> outcome = new CompletableFuture<>();
        Thread thread = new Thread(() -> {
            try {
                body.run();
                outcome.complete(null);
            } catch (Throwable t) {
                outcome.completeExceptionally(t);
            }
        }, name);
        thread.setDaemon(true);
        thread.start();
        return new Running(thread, outcome);
    }

    static List<LocalChannel> channels(LocalShuffleService shuffle, int edge, int producer, int consumers) {
        List<LocalChannel> list = new ArrayList<>();
        for (int c = 0; c < consumers; c++) {
            list.add(shuffle.channel(new ChannelKey(JOB, 0, edge, producer, c)));
        }
        return list;
    }

    /** Records barrier callbacks and records in one sequence, as strings. */
    static final class Recorder implements BarrierHandler, RecordHandler<Object> {
        final List<String> events = new ArrayList<>();

        @Override
        public void accept(Object record) {
            events.add("record " + record);
        }

        @Override
        public void onAligned(CheckpointBarrier barrier) {
            events.add("aligned " + barrier.checkpointId());
        }

        @Override
        public void onAborted(long checkpointId) {
            events.add("aborted " + checkpointId);
        }
    }
}
