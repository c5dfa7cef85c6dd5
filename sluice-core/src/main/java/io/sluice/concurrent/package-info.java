/**
 * The one way Sluice does each common concurrency chore:
 * <ul>
 *   <li><b>Retrying with backoff.</b> {@link io.sluice.concurrent.BackoffPolicy} (immutable: initial
 *       delay, multiplier, cap, jitter from an injected random, optional attempt limit or deadline)
 *       computes every wait between attempts; {@link io.sluice.concurrent.Backoff} counts one retry
 *       loop's failed attempts against it on an injected clock; {@link io.sluice.concurrent.RetryRunner}
 *       runs an asynchronous call to success on an injected {@link io.sluice.concurrent.Scheduler}.
 *       A loop that is part of a state machine (a recovery attempt, a registration) keeps its own
 *       steps and asks the policy for its delays; a plain "call until it succeeds" uses the runner.</li>
 *   <li><b>Unwrapping a failed future's cause</b>: {@link io.sluice.concurrent.Futures#unwrap}.</li>
 *   <li><b>Making threads</b>: {@link io.sluice.concurrent.DaemonThreadFactory} (named daemon threads
 *       with Sluice's class loader as their context class loader; a job's class loader only for a
 *       thread that runs the job's code and ends with it).</li>
 * </ul>
 * Durations in the texts these produce are {@link io.sluice.config.Durations#describe}d.
 *
 * <p>Layer 1 of 11 in sluice-core (foundations; docs/architecture.md), beside {@code util} and
 * {@code config}, whose {@code Clock} and {@code Durations} it uses. Neither uses it; no package of
 * a layer above is used; no cycles (the module's architecture test checks both).
 */
package io.sluice.concurrent;
