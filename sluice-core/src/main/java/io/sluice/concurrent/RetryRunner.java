package io.sluice.concurrent;

import io.sluice.util.Clock;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;
import java.util.random.RandomGenerator;

/**
 * Runs an asynchronous call until it succeeds, waiting between attempts as a {@link BackoffPolicy}
 * says, on an injected {@link Scheduler}:
 * <ol>
 *   <li>{@link Builder#start} makes attempt 1 at once, on the calling thread;</li>
 *   <li>each attempt's answer is looked at on the scheduler (one hop, like
 *       {@code whenCompleteAsync(fn, scheduler)}); first the loop checks that it is still
 *       {@linkplain Builder#whileCurrent current} (a leader session, a registration): if not, it
 *       stops silently, its {@link #result()} cancelled;</li>
 *   <li>success completes {@link #result()}; a failure (unwrapped with {@link Futures#unwrap})
 *       that {@linkplain Builder#retryIf is not to be retried} fails it with that failure, and so
 *       does running out of attempts or time, with a {@link RetriesExhaustedException};</li>
 *   <li>otherwise the {@linkplain Builder#onRetry listener} is told (for the log line and the
 *       status: "attempt 4, next retry in 3.2 s") and the next attempt is scheduled after the
 *       delay; when it is due, the loop checks again that it is current.</li>
 * </ol>
 * Dependents of {@link #result()} registered right after {@code start} run on the scheduler, in
 * the same turn as the answer that completed it.
 *
 * <p>Threading: start it on the scheduler's thread (a component's main thread); every answer and
 * retry then runs there, and {@link #cancel()} must be called there too. Attempts themselves may
 * complete on any thread (an I/O executor).
 *
 * @param <T> what a successful attempt yields
 */
public final class RetryRunner<T> {

    /** One attempt: starts the call and returns its future. Must not block. */
    @FunctionalInterface
    public interface Attempt<T> {
        /** @param attempt 1 for the first attempt, 2 for the first retry, ... */
        CompletableFuture<T> start(int attempt) throws Exception;
    }

    /** Told on the scheduler before each retry is scheduled. */
    @FunctionalInterface
    public interface RetryListener {
        /**
         * @param failedAttempt the number of the attempt that failed (1-based)
         * @param cause         its failure, without the future's wrappers
         * @param delay         the wait until the next attempt
         */
        void retrying(int failedAttempt, Throwable cause, Duration delay);
    }

    private final Backoff backoff;
    private final Scheduler scheduler;
    private final Attempt<T> attempt;
    private final Predicate<Throwable> retryIf;
    private final BooleanSupplier whileCurrent;
    private final RetryListener listener;
    private final CompletableFuture<T> result = new CompletableFuture<>();
    private int attempts;
    /** The scheduled next attempt, or null. */
    private Cancellable next;

    private RetryRunner(Builder b, Attempt<T> attempt) {
        this.backoff = b.policy.start(b.clock, b.random);
        this.scheduler = b.scheduler;
        this.attempt = attempt;
        this.retryIf = b.retryIf;
        this.whileCurrent = b.whileCurrent;
        this.listener = b.listener;
    }

    /** A runner retrying as {@code policy} says; set the scheduler and clock, then {@link Builder#start}. */
    public static Builder with(BackoffPolicy policy) {
        return new Builder(policy);
    }

    /**
     * Completes with the first successful attempt's value; fails with a failure not to be retried or
     * a {@link RetriesExhaustedException}; is cancelled when the loop stopped being current or was
     * {@linkplain #cancel() cancelled}.
     */
    public CompletableFuture<T> result() {
        return result;
    }

    /** How many attempts were started so far. */
    public int attempts() {
        return attempts;
    }

    /** Stops: no further attempt; the answer of one in flight is ignored; {@link #result()} is cancelled. */
    public void cancel() {
        if (next != null) {
            next.cancel();
            next = null;
        }
        stop("cancelled");
    }

    /**
     * Whether {@code failure} (as {@link #result()} or a dependent of it sees it) only says that the
     * loop stopped: it was cancelled or stopped being current. Not an attempt's own
     * {@link CancellationException}, which is a failure like any other.
     */
    public static boolean isStopped(Throwable failure) {
        return Futures.unwrap(failure) instanceof Stopped;
    }

    private void stop(String why) {
        result.completeExceptionally(new Stopped(why));
    }

    /** The result of a loop that stopped before an outcome. */
    private static final class Stopped extends CancellationException {
        Stopped(String why) {
            super("The retry loop stopped: " + why);
        }
    }

    private void runAttempt() {
        int n = ++attempts;
        CompletableFuture<T> answer;
        try {
            answer = Objects.requireNonNull(attempt.start(n), "the attempt returned no future");
        } catch (Exception e) {
            answer = CompletableFuture.failedFuture(e);
        }
        answer.whenCompleteAsync((value, error) -> answered(n, value, error), scheduler);
    }

    private void answered(int n, T value, Throwable error) {
        if (result.isDone()) {
            return; // cancelled meanwhile
        }
        if (!whileCurrent.getAsBoolean()) {
            stop("no longer current");
            return;
        }
        if (error == null) {
            result.complete(value);
            return;
        }
        Throwable cause = Futures.unwrap(error);
        if (!retryIf.test(cause)) {
            result.completeExceptionally(cause);
            return;
        }
        Optional<Duration> delay = backoff.nextDelay();
        if (delay.isEmpty()) {
            result.completeExceptionally(new RetriesExhaustedException(n, backoff.elapsed(), cause));
            return;
        }
        listener.retrying(n, cause, delay.get());
        next = scheduler.schedule(this::retry, delay.get());
    }

    private void retry() {
        next = null;
        if (result.isDone()) {
            return;
        }
        if (!whileCurrent.getAsBoolean()) {
            stop("no longer current");
            return;
        }
        runAttempt();
    }

    /** Settings of a {@link RetryRunner}. Not thread-safe. */
    public static final class Builder {
        private final BackoffPolicy policy;
        private Scheduler scheduler;
        private Clock clock;
        private RandomGenerator random;
        private Predicate<Throwable> retryIf = t -> true;
        private BooleanSupplier whileCurrent = () -> true;
        private RetryListener listener = (attempt, cause, delay) -> { };

        private Builder(BackoffPolicy policy) {
            this.policy = Objects.requireNonNull(policy, "policy");
        }

        /** Where answers are looked at and retries run (required). */
        public Builder scheduler(Scheduler scheduler) {
            this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
            return this;
        }

        /** The time the deadline and the elapsed time are measured on (required). */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /** The source of the jitter (required when the policy has jitter). */
        public Builder random(RandomGenerator random) {
            this.random = Objects.requireNonNull(random, "random");
            return this;
        }

        /** Which failures are retried (default: all); any other fails the result at once. */
        public Builder retryIf(Predicate<Throwable> retryIf) {
            this.retryIf = Objects.requireNonNull(retryIf, "retryIf");
            return this;
        }

        /** Whether the loop is still wanted, checked at every answer and before every retry (default: always). */
        public Builder whileCurrent(BooleanSupplier whileCurrent) {
            this.whileCurrent = Objects.requireNonNull(whileCurrent, "whileCurrent");
            return this;
        }

        /** Told before each retry is scheduled: the place for the log line and the status. */
        public Builder onRetry(RetryListener listener) {
            this.listener = Objects.requireNonNull(listener, "listener");
            return this;
        }

        /** Makes the first attempt now, on the calling thread, and returns the running loop. */
        public <T> RetryRunner<T> start(Attempt<T> attempt) {
            Objects.requireNonNull(attempt, "attempt");
            if (scheduler == null || clock == null) {
                throw new IllegalStateException("A retry runner needs a scheduler and a clock");
            }
            if (policy.jitter() != 0 && random == null) {
                throw new IllegalStateException("The " + policy + " varies its waits: give the runner a random source");
            }
            RetryRunner<T> runner = new RetryRunner<>(this, attempt);
            runner.runAttempt();
            return runner;
        }
    }
}
