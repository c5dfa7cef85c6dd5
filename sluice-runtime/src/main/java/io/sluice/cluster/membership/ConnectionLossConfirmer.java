package io.sluice.cluster.membership;

import io.sluice.concurrent.BackoffPolicy;
import io.sluice.concurrent.Futures;
import io.sluice.concurrent.RetriesExhaustedException;
import io.sluice.concurrent.RetryRunner;
import io.sluice.config.Durations;
import io.sluice.rpc.MainThreadExecutor;
import io.sluice.rpc.remote.RpcAddress;
import io.sluice.rpc.remote.RpcService;
import io.sluice.util.Clock;
import io.sluice.util.Throwables;
import java.net.ConnectException;
import java.time.Duration;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Confirms quickly that a peer whose connection was reset or refused is gone: reconnects right away
 * and then every fifth of the deadline ({@link BackoffPolicy#fixed} with the deadline, run by a
 * {@link RetryRunner} on the main thread); if every attempt until the deadline is refused (nothing
 * listens on its RPC port: the process died), it gives the verdict "lost". A connection that opens,
 * or an attempt that fails any other way (a connect timeout, no route: silence, which may be a GC
 * pause or a cut link), ends the check without a verdict and leaves the peer to the heartbeat.
 *
 * <p>One check per peer id at a time; a new registration id starts a new one. Every callback is
 * checked against the check it was made for, so a late answer about a replaced registration is
 * ignored. Threading: main thread only (the owner's); connect attempts never block it.
 */
final class ConnectionLossConfirmer {
    private static final Logger LOG = LoggerFactory.getLogger(ConnectionLossConfirmer.class);

    /** How a check reaches a peer. Any thread; never blocks. */
    interface Probe {
        /** Where a gateway calls, or empty when it is local (then nothing is checked). */
        Optional<RpcAddress> addressOf(Object gateway);

        /** Opens (or reuses) the connection; fails with the reason when it cannot. */
        CompletableFuture<Void> connect(RpcAddress address);

        /** A probe over an RPC service's own connections. */
        static Probe of(RpcService rpc) {
            return new Probe() {
                @Override
                public Optional<RpcAddress> addressOf(Object gateway) {
                    return RpcService.addressOf(gateway);
                }

                @Override
                public CompletableFuture<Void> connect(RpcAddress address) {
                    return rpc.connect(address);
                }
            };
        }
    }

    /**
     * Told on the main thread that a peer is confirmed lost, with the evidence ("its connection failed
     * (…) and host:port refused 6 reconnect attempt(s) over 1 s (its process is gone)"); must re-check
     * that the registration is still current.
     */
    interface Verdict {
        void lost(String peerId, UUID registrationId, String evidence);
    }

    private final Probe probe;
    private final MainThreadExecutor mainThread;
    private final Clock clock;
    private final Duration deadline;
    /** Reconnect every fifth of the deadline until the deadline. */
    private final BackoffPolicy reconnects;
    private final Verdict verdict;
    private final Map<String, Check> checks = new HashMap<>();

    private record Check(UUID registrationId, RpcAddress address, String trigger) {
    }

    ConnectionLossConfirmer(Probe probe, MainThreadExecutor mainThread, Clock clock, Duration deadline, Verdict verdict) {
        this.probe = Objects.requireNonNull(probe, "probe");
        this.mainThread = Objects.requireNonNull(mainThread, "mainThread");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.deadline = Objects.requireNonNull(deadline, "deadline");
        Duration retry = deadline.dividedBy(5);
        this.verdict = Objects.requireNonNull(verdict, "verdict");
        if (retry.isZero() || retry.isNegative()) {
            throw new IllegalArgumentException("The connection-loss deadline must be at least 5 ns, got " + deadline);
        }
        this.reconnects = BackoffPolicy.fixed(retry).toBuilder().deadline(deadline).build();
    }

    Probe probe() {
        return probe;
    }

    /** The connection to this peer's registration failed ({@code cause} may be {@code null}): check it, unless checking already. */
    void suspect(String peerId, UUID registrationId, RpcAddress address, Throwable cause) {
        mainThread.assertRunningInMainThread();
        Check running = checks.get(peerId);
        if (running != null && running.registrationId().equals(registrationId)) {
            return;
        }
        Check check = new Check(registrationId, address,
                cause == null ? "closed by the peer" : String.valueOf(Throwables.rootCause(cause).getMessage()));
        checks.put(peerId, check);
        LOG.info("The connection to {} at {} failed ({}); reconnecting for up to {} to tell a dead process from a slow one",
                peerId, address, check.trigger(), Durations.describe(deadline));
        RetryRunner.with(reconnects).scheduler(mainThread).clock(clock)
                .whileCurrent(() -> checks.get(peerId) == check) // a replaced registration, or a check that ended
                .retryIf(ConnectionLossConfirmer::isRefused)
                .start(attempt -> probe.connect(check.address()))
                .result().whenComplete((ok, error) -> ended(peerId, check, error));
    }

    /** The registration ended (replaced, removed): drop its check; its late answers are ignored. */
    void forget(String peerId) {
        mainThread.assertRunningInMainThread();
        checks.remove(peerId);
    }

    int checksRunning() {
        return checks.size();
    }

    /** Main thread: the check's reconnects ended (its runner's result, {@code error} null: a connection opened). */
    private void ended(String peerId, Check check, Throwable error) {
        if (error != null && RetryRunner.isStopped(error)) {
            return; // a replaced registration, or a check that ended
        }
        checks.remove(peerId);
        if (error == null) {
            LOG.info("{} at {} accepted a connection again: not lost (its heartbeat still counts)", peerId, check.address());
        } else if (Futures.unwrap(error) instanceof RetriesExhaustedException refusedThroughout) {
            verdict.lost(peerId, check.registrationId(), "its connection failed ("
                    + check.trigger() + ") and " + check.address() + " refused " + refusedThroughout.attempts()
                    + " reconnect attempt(s) over " + Durations.describe(refusedThroughout.elapsed())
                    + " (its process is gone)");
        } else {
            LOG.info("Reconnecting to {} at {} failed without a refusal ({}): it may be slow or cut off rather than"
                    + " dead, so only heartbeat.timeout decides", peerId, check.address(), Throwables.rootCause(error));
        }
    }

    /** A refused connection (nothing listens: the process is gone), as opposed to a timeout or no route (silence). */
    static boolean isRefused(Throwable error) {
        Throwable root = Throwables.rootCause(error);
        if (!(root instanceof ConnectException)) {
            return false; // a connect timeout is a ConnectException too, but says "timed out"
        }
        String m = root.getMessage();
        return m != null && m.toLowerCase(Locale.ROOT).contains("refused");
    }
}
