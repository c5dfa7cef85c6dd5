package io.sluice.compare;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class StatusProbeTest {

    @Test
    void answeredQueriesCountWithTheirLatencyAndErrorsAreCounted() throws Exception {
        AtomicInteger sent = new AtomicInteger();
        StatusProbe probe = new StatusProbe(() -> sent.incrementAndGet() % 2 == 0
                ? CompletableFuture.completedFuture("RUNNING")
                : CompletableFuture.failedFuture(new IllegalStateException("unknown job")), Duration.ofMillis(1)).start();
        await().atMost(Duration.ofSeconds(10)).until(() -> sent.get() >= 20);
        LatencySummary s = probe.stop();
        assertThat(s.queries()).isEqualTo(sent.get());
        assertThat(s.unanswered()).isZero();
        assertThat(s.errors()).isEqualTo((sent.get() + 1) / 2);
        assertThat(s.over1s()).isZero();
        assertThat(probe.firstAnswerNanos()).isGreaterThanOrEqualTo(0);
    }

    @Test
    void queriesStillUnansweredAtTheEndCountWithTheTimeTheyWaited() throws Exception {
        CompletableFuture<String> never = new CompletableFuture<>();
        AtomicInteger sent = new AtomicInteger();
        StatusProbe probe = new StatusProbe(() -> {
            sent.incrementAndGet();
            return never;
        }, Duration.ofMillis(1)).start();
        await().atMost(Duration.ofSeconds(10)).until(() -> sent.get() >= 5);
        LatencySummary s = probe.stop();
        assertThat(s.unanswered()).isEqualTo(s.queries()).isEqualTo(sent.get());
        assertThat(s.maxMs()).isGreaterThanOrEqualTo(s.p50Ms()).isGreaterThan(0);
        assertThat(probe.firstAnswerNanos()).isEqualTo(-1);
    }
}
