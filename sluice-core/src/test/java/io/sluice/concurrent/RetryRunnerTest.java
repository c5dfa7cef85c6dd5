package io.sluice.concurrent;

import static io.sluice.concurrent.BackoffPolicyTest.ms;
import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.util.ManualClock;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/** The retry runner on a manual clock and scheduler: every attempt, answer and retry is triggered by the test. */
class RetryRunnerTest {
    private static final BackoffPolicy DOUBLING = BackoffPolicy.exponential(ms(100), Duration.ofSeconds(1));

    private final ManualClock clock = new ManualClock();
    private final ManualScheduler scheduler = new ManualScheduler(clock);
    /** The answers of the attempts, in order; completed by the test. */
    private final List<CompletableFuture<String>> attempts = new ArrayList<>();
    /** When each attempt started, in ms on the clock. */
    private final List<Long> startedAtMs = new ArrayList<>();
    private final List<String> retries = new ArrayList<>();

    private RetryRunner.Builder runner(BackoffPolicy policy) {
        return RetryRunner.with(policy).scheduler(scheduler).clock(clock)
                .onRetry((attempt, cause, delay) -> retries.add(attempt + ": " + cause.getMessage() + ", next in "
                        + io.sluice.config.Durations.describe(delay)));
    }

    private CompletableFuture<String> attempt(int n) {
        assertThat(n).as("attempts are numbered in order").isEqualTo(attempts.size() + 1);
        CompletableFuture<String> answer = new CompletableFuture<>();
        attempts.add(answer);
        startedAtMs.add(clock.nanoTime() / 1_000_000);
        return answer;
    }

    @Test
    void theFirstAttemptRunsAtOnceAndItsAnswerIsLookedAtOnTheScheduler() {
        RetryRunner<String> r = runner(DOUBLING).start(this::attempt);
        assertThat(attempts).hasSize(1);
        attempts.get(0).complete("done");
        assertThat(r.result()).as("not before the scheduler ran the answer").isNotDone();
        assertThat(scheduler.runQueued()).isEqualTo(1);
        assertThat(r.result()).isCompletedWithValue("done");
        assertThat(r.attempts()).isEqualTo(1);
        assertThat(retries).isEmpty();
    }

    @Test
    void retriesAfterEachFailureWithThePolicysWaitsUntilAnAttemptSucceeds() {
        RetryRunner<String> r = runner(DOUBLING).start(this::attempt);
        for (int i = 0; i < 4; i++) {
            attempts.get(i).completeExceptionally(new CompletionException(new IOException("refused " + (i + 1))));
            scheduler.advance(Duration.ZERO);
            scheduler.advance(scheduler.nextDelay());
        }
        attempts.get(4).complete("done");
        scheduler.runQueued();
        assertThat(r.result()).isCompletedWithValue("done");
        assertThat(startedAtMs).containsExactly(0L, 100L, 300L, 700L, 1_500L);
        assertThat(retries).containsExactly("1: refused 1, next in 100 ms", "2: refused 2, next in 200 ms",
                "3: refused 3, next in 400 ms", "4: refused 4, next in 800 ms");
        assertThat(scheduler.numScheduled()).isZero();
    }

    @Test
    void aFailureNotToBeRetriedFailsTheResultAtOnce() {
        RetryRunner<String> r = runner(DOUBLING).retryIf(t -> t instanceof IOException).start(this::attempt);
        IllegalStateException permanent = new IllegalStateException("corrupt");
        attempts.get(0).completeExceptionally(new CompletionException(permanent));
        scheduler.runQueued();
        assertThat(r.result()).isCompletedExceptionally();
        assertThat(r.result().handle((v, e) -> Futures.unwrap(e)).join()).isSameAs(permanent);
        assertThat(scheduler.numScheduled()).isZero();
        assertThat(retries).isEmpty();
    }

    @Test
    void givesUpAtTheAttemptLimitWithTheLastFailure() {
        RetryRunner<String> r = runner(BackoffPolicy.fixed(ms(500)).toBuilder().maxAttempts(3).build()).start(this::attempt);
        for (int i = 0; i < 3; i++) {
            attempts.get(i).completeExceptionally(new IOException("no answer " + (i + 1)));
            scheduler.advance(ms(500));
        }
        Throwable failure = r.result().handle((v, e) -> Futures.unwrap(e)).join();
        assertThat(failure).isInstanceOf(RetriesExhaustedException.class)
                .hasMessage("Gave up after 3 attempts over 1 s: java.io.IOException: no answer 3");
        assertThat(((RetriesExhaustedException) failure).attempts()).isEqualTo(3);
        assertThat(failure.getCause()).hasMessage("no answer 3");
        assertThat(retries).hasSize(2);
        assertThat(attempts).hasSize(3);
    }

    @Test
    void givesUpAtTheDeadlineAfterAShortenedLastWait() {
        BackoffPolicy policy = BackoffPolicy.fixed(ms(400)).toBuilder().deadline(Duration.ofSeconds(1)).build();
        RetryRunner<String> r = runner(policy).start(this::attempt);
        for (int i = 0; i < 3; i++) {
            attempts.get(i).completeExceptionally(new IOException("refused"));
            scheduler.advance(Duration.ZERO);
            scheduler.advance(scheduler.nextDelay());
        }
        assertThat(startedAtMs).containsExactly(0L, 400L, 800L, 1_000L);
        attempts.get(3).completeExceptionally(new IOException("refused"));
        scheduler.runQueued();
        Throwable failure = r.result().handle((v, e) -> Futures.unwrap(e)).join();
        assertThat(failure).isInstanceOf(RetriesExhaustedException.class);
        assertThat(((RetriesExhaustedException) failure).attempts()).isEqualTo(4);
        assertThat(((RetriesExhaustedException) failure).elapsed()).isEqualTo(Duration.ofSeconds(1));
        assertThat(retries).containsExactly("1: refused, next in 400 ms", "2: refused, next in 400 ms",
                "3: refused, next in 200 ms");
    }

    @Test
    void anAnswerAfterTheLoopStoppedBeingCurrentIsIgnored() {
        AtomicBoolean current = new AtomicBoolean(true);
        RetryRunner<String> r = runner(DOUBLING).whileCurrent(current::get).start(this::attempt);
        current.set(false);
        attempts.get(0).completeExceptionally(new IOException("refused"));
        scheduler.runQueued();
        assertThat(r.result()).isCancelled();
        assertThat(r.result().handle((v, e) -> RetryRunner.isStopped(e)).join()).isTrue();
        assertThat(retries).as("nothing logged for a stale answer").isEmpty();
        assertThat(scheduler.numScheduled()).isZero();
    }

    @Test
    void aRetryDueAfterTheLoopStoppedBeingCurrentMakesNoAttempt() {
        AtomicBoolean current = new AtomicBoolean(true);
        RetryRunner<String> r = runner(DOUBLING).whileCurrent(current::get).start(this::attempt);
        attempts.get(0).completeExceptionally(new IOException("refused"));
        scheduler.runQueued();
        current.set(false);
        scheduler.advance(ms(100));
        assertThat(attempts).hasSize(1);
        assertThat(r.result()).isCancelled();
    }

    @Test
    void cancelDropsTheScheduledRetryAndALateAnswer() {
        RetryRunner<String> r = runner(DOUBLING).start(this::attempt);
        attempts.get(0).completeExceptionally(new IOException("refused"));
        scheduler.runQueued();
        assertThat(scheduler.numScheduled()).isEqualTo(1);
        r.cancel();
        assertThat(scheduler.numScheduled()).isZero();
        assertThat(r.result()).isCancelled();

        CompletableFuture<String> late = new CompletableFuture<>();
        RetryRunner<String> inFlight = runner(DOUBLING).start(n -> late);
        inFlight.cancel();
        late.complete("late");
        scheduler.advance(Duration.ofSeconds(10));
        assertThat(inFlight.result()).isCancelled();
        assertThat(inFlight.attempts()).isEqualTo(1);
    }

    @Test
    void anAttemptsOwnCancellationIsAFailureNotAStop() {
        RetryRunner<String> r = runner(DOUBLING).retryIf(t -> false).start(this::attempt);
        attempts.get(0).cancel(false);
        scheduler.runQueued();
        Throwable failure = r.result().handle((v, e) -> e).join();
        assertThat(Futures.unwrap(failure)).isInstanceOf(CancellationException.class);
        assertThat(RetryRunner.isStopped(failure)).isFalse();
    }

    @Test
    void anAttemptThatThrowsCountsAsFailed() {
        int[] calls = {0};
        RetryRunner<String> r = runner(DOUBLING).start(n -> {
            if (++calls[0] == 1) {
                throw new IOException("could not start");
            }
            return CompletableFuture.completedFuture("second");
        });
        scheduler.runQueued();
        assertThat(retries).containsExactly("1: could not start, next in 100 ms");
        scheduler.advance(ms(100));
        assertThat(r.result()).isCompletedWithValue("second");
    }

    @Test
    void jitterComesFromTheInjectedRandom() {
        long seed = System.nanoTime();
        System.out.println("RetryRunnerTest seed " + seed);
        BackoffPolicy jittered = DOUBLING.toBuilder().jitter(0.2).build();
        List<Duration> waits = new ArrayList<>();
        RetryRunner.with(jittered).scheduler(scheduler).clock(clock).random(new SplittableRandom(seed))
                .onRetry((attempt, cause, delay) -> waits.add(delay)).start(this::attempt);
        for (int i = 0; i < 3; i++) {
            attempts.get(i).completeExceptionally(new IOException("refused"));
            scheduler.advance(Duration.ZERO);
            scheduler.advance(scheduler.nextDelay());
        }
        SplittableRandom same = new SplittableRandom(seed);
        assertThat(waits).containsExactly(jittered.delayAfter(1, same), jittered.delayAfter(2, same),
                jittered.delayAfter(3, same));
    }
}
