package io.sluice.cluster.membership;

import io.sluice.rpc.MainThreadExecutor;
import io.sluice.rpc.remote.RpcAddress;
import io.sluice.rpc.remote.RpcService;
import io.sluice.util.Clock;
import java.net.ConnectException;
import java.time.Duration;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Confirms quickly that a peer whose connection was reset or refused is gone: reconnects right away
 * and then every fifth of the deadline; if every attempt until the deadline is refused (nothing
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
    private final Duration retry;
    private final Verdict verdict;
    private final Map<String, Check> checks = new HashMap<>();

    private static final class Check {
        final UUID registrationId;
        final RpcAddress address;
        final long startNanos;
        final String trigger;
        int refused;

        Check(UUID registrationId, RpcAddress address, long startNanos, String trigger) {
            this.registrationId = registrationId;
            this.address = address;
            this.startNanos = startNanos;
            this.trigger = trigger;
        }
    }

    ConnectionLossConfirmer(Probe probe, MainThreadExecutor mainThread, Clock clock, Duration deadline, Verdict verdict) {
        this.probe = Objects.requireNonNull(probe, "probe");
        this.mainThread = Objects.requireNonNull(mainThread, "mainThread");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.deadline = Objects.requireNonNull(deadline, "deadline");
        this.retry = deadline.dividedBy(5);
        this.verdict = Objects.requireNonNull(verdict, "verdict");
        if (retry.isZero() || retry.isNegative()) {
            throw new IllegalArgumentException("The connection-loss deadline must be at least 5 ns, got " + deadline);
        }
    }

    Probe probe() {
        return probe;
    }

    /** The connection to this peer's registration failed ({@code cause} may be {@code null}): check it, unless checking already. */
    void suspect(String peerId, UUID registrationId, RpcAddress address, Throwable cause) {
        mainThread.assertRunningInMainThread();
        Check running = checks.get(peerId);
        if (running != null && running.registrationId.equals(registrationId)) {
            return;
        }
        Check check = new Check(registrationId, address, clock.nanoTime(),
                cause == null ? "closed by the peer" : String.valueOf(rootCause(cause).getMessage()));
        checks.put(peerId, check);
        LOG.info("The connection to {} at {} failed ({}); reconnecting for up to {} to tell a dead process from a slow one",
                peerId, address, check.trigger, Durations.describe(deadline));
        attempt(peerId, check);
    }

    /** The registration ended (replaced, removed): drop its check; its late answers are ignored. */
    void forget(String peerId) {
        mainThread.assertRunningInMainThread();
        checks.remove(peerId);
    }

    int checksRunning() {
        return checks.size();
    }

    private void attempt(String peerId, Check check) {
        CompletableFuture<Void> connected;
        try {
            connected = probe.connect(check.address);
        } catch (RuntimeException e) {
            connected = CompletableFuture.failedFuture(e);
        }
        connected.whenComplete((ok, error) -> mainThread.execute(() -> answered(peerId, check, error)));
    }

    private void answered(String peerId, Check check, Throwable error) {
        if (checks.get(peerId) != check) {
            return; // a replaced registration, or a check that ended
        }
        if (error == null) {
            checks.remove(peerId);
            LOG.info("{} at {} accepted a connection again: not lost (its heartbeat still counts)", peerId, check.address);
            return;
        }
        if (!isRefused(error)) {
            checks.remove(peerId);
            LOG.info("Reconnecting to {} at {} failed without a refusal ({}): it may be slow or cut off rather than"
                    + " dead, so only heartbeat.timeout decides", peerId, check.address, rootCause(error));
            return;
        }
        check.refused++;
        long elapsed = clock.nanoTime() - check.startNanos;
        if (elapsed >= deadline.toNanos()) {
            checks.remove(peerId);
            verdict.lost(peerId, check.registrationId, "its connection failed ("
                    + check.trigger + ") and " + check.address + " refused " + check.refused + " reconnect attempt(s) over "
                    + Durations.describe(Duration.ofNanos(elapsed)) + " (its process is gone)");
            return;
        }
        Duration wait = Duration.ofNanos(Math.min(retry.toNanos(), deadline.toNanos() - elapsed));
        mainThread.schedule(() -> {
            if (checks.get(peerId) == check) {
                attempt(peerId, check);
            }
        }, wait);
    }

    /** A refused connection (nothing listens: the process is gone), as opposed to a timeout or no route (silence). */
    static boolean isRefused(Throwable error) {
        Throwable root = rootCause(error);
        if (!(root instanceof ConnectException)) {
            return false; // a connect timeout is a ConnectException too, but says "timed out"
        }
        String m = root.getMessage();
        return m != null && m.toLowerCase(Locale.ROOT).contains("refused");
    }

    private static Throwable rootCause(Throwable t) {
        Throwable c = t;
        while ((c instanceof CompletionException || c.getCause() != null) && c.getCause() != null && c.getCause() != c) {
            c = c.getCause();
        }
        return c;
    }
}
