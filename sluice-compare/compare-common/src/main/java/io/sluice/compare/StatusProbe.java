package io.sluice.compare;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * Sends a job-status query every {@code period} from its own thread, without waiting for earlier
 * answers, and records each query's latency from send to answer. A system whose main thread is
 * blocked answers nothing for a while, and every query sent meanwhile shows it; queries still
 * unanswered when the probe stops count with the time they had waited (a lower bound).
 *
 * <p>Use: {@code start()} from any thread, then {@code stop()} once; not reusable. The query
 * supplier runs on the probe's thread and must not block (an answer that is an exception still
 * counts as an answer, and is counted in {@link LatencySummary#errors()}).
 */
public final class StatusProbe {
    private final Supplier<? extends CompletableFuture<?>> query;
    private final Duration period;
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "status-probe");
        t.setDaemon(true);
        return t;
    });
    private final ConcurrentLinkedQueue<Long> answeredNanos = new ConcurrentLinkedQueue<>();
    private final List<Pending> sent = new ArrayList<>(); // probe thread only until stop()
    private final AtomicInteger errors = new AtomicInteger();
    private volatile long firstAnswerNanos = -1;

    private record Pending(long sentAt, CompletableFuture<?> answer) {
    }

    public StatusProbe(Supplier<? extends CompletableFuture<?>> query, Duration period) {
        this.query = query;
        this.period = period;
    }

    public StatusProbe start() {
        timer.scheduleAtFixedRate(this::send, 0, period.toNanos(), TimeUnit.NANOSECONDS);
        return this;
    }

    private void send() {
        long t0 = System.nanoTime();
        CompletableFuture<?> f;
        try {
            f = query.get();
        } catch (RuntimeException e) {
            f = CompletableFuture.failedFuture(e);
        }
        CompletableFuture<?> answer = f.whenComplete((v, e) -> {
            long latency = System.nanoTime() - t0;
            if (e != null) {
                errors.incrementAndGet();
            }
            if (firstAnswerNanos < 0) {
                firstAnswerNanos = latency;
            }
            answeredNanos.add(latency);
        });
        sent.add(new Pending(t0, answer));
    }

    /** Latency of the first answer received, or -1 if none yet. */
    public long firstAnswerNanos() {
        return firstAnswerNanos;
    }

    /** Stops sending and summarises; queries not answered by now count with the time waited so far. */
    public LatencySummary stop() throws InterruptedException {
        timer.shutdown();
        if (!timer.awaitTermination(30, TimeUnit.SECONDS)) {
            throw new IllegalStateException("The status probe's thread did not stop within 30 s: a query blocked it");
        }
        long now = System.nanoTime();
        List<Long> latencies = new ArrayList<>(answeredNanos);
        int unanswered = 0;
        for (Pending p : sent) {
            if (!p.answer().isDone()) {
                unanswered++;
                latencies.add(now - p.sentAt());
            }
        }
        // answers may land between isDone() and the copy above; count each query once
        long[] nanos = latencies.stream().mapToLong(Long::longValue).limit(sent.size()).toArray();
        return LatencySummary.of(nanos, unanswered, errors.get());
    }
}
