package io.sluice.rpc.remote;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ConnectTimeoutException;
import java.net.ConnectException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * The one connection of an {@link RpcService} to one remote address (kept by its {@link RpcConnections}), multiplexing every call to
 * it: requests carry ids and their answers are matched by id. Opened lazily on the first call;
 * frames sent before it is open are queued and written in order once it is. When it cannot be
 * opened or is lost, every call in flight fails naming the address, and the service forgets it, so
 * the next call opens a new one. Thread-safe: {@link #send} may be called from any thread; the
 * Netty callbacks run on the channel's event loop and never block.
 */
final class RpcConnection {
    private final RpcConnections owner;
    final RpcAddress address;
    private final Map<Long, PendingRequest> pending = new ConcurrentHashMap<>();
    private final List<Queued> queued = new ArrayList<>();
    /** Frames received from the peer so far: a timeout with none since its request was sent means a dead connection. */
    private final java.util.concurrent.atomic.AtomicLong framesReceived = new java.util.concurrent.atomic.AtomicLong();
    private Channel channel;
    private RpcConnectionException broken;
    /** Set when this side closes the connection (not the peer, not the network). */
    private boolean closedHere;
    /** Completes (off the event loop) once the connection is open, or fails when it cannot be opened. */
    final java.util.concurrent.CompletableFuture<Void> whenOpen = new java.util.concurrent.CompletableFuture<>();

    private record Queued(ByteBuf frame, PendingRequest request, Consumer<Throwable> onFailure) {
    }

    RpcConnection(RpcConnections owner, RpcAddress address) {
        this.owner = owner;
        this.address = address;
    }

    /**
     * Called once the connect attempt ended: with the open channel, or with {@code null} and the
     * cause (on an event loop or a worker).
     */
    void connected(Channel opened, Throwable cause) {
        List<Queued> toFail;
        synchronized (this) {
            if (opened != null && broken == null) {
                channel = opened;
                // Under the lock, before any later call can write: frames keep the order of the calls.
                for (Queued q : queued) {
                    write(q.frame, q.request, q.onFailure);
                }
                queued.clear();
                owner.completeOffEventLoop(() -> whenOpen.complete(null));
                return;
            }
            if (broken == null) {
                broken = new RpcConnectionException("Cannot reach " + address + " (" + reason(cause)
                        + "). Check that the Sluice process there is running and that its RPC host and port are right;"
                        + " the next call tries to connect again.", cause);
            }
            toFail = new ArrayList<>(queued);
            queued.clear();
        }
        owner.forget(this);
        boolean here;
        synchronized (this) {
            here = closedHere;
        }
        RpcConnectionException error = broken;
        owner.completeOffEventLoop(() -> whenOpen.completeExceptionally(error));
        if (opened != null) {
            opened.close(); // closed meanwhile
        } else if (!here) {
            owner.connectionFailed(address, cause);
        }
        for (Queued q : toFail) {
            q.frame.release();
            fail(q.request, q.onFailure, broken);
        }
        failAll(broken);
    }

    private String reason(Throwable cause) {
        if (cause instanceof ConnectTimeoutException) {
            return "no connection within " + owner.connectTimeoutMillis() + " ms, rpc.connect-timeout";
        }
        if (cause instanceof java.net.UnknownHostException) {
            return "unknown host " + cause.getMessage();
        }
        if (cause instanceof ConnectException) {
            String m = cause.getMessage();
            int colon = m == null ? -1 : m.indexOf(':');
            return colon > 0 ? m.substring(0, colon) : String.valueOf(m);
        }
        return String.valueOf(cause);
    }

    /**
     * Sends a frame; {@code request} ({@code null} for a one-way message) is registered for its
     * answer first. A failure to send fails the request, or goes to {@code onFailure} for one-way messages.
     */
    void send(ByteBuf frame, PendingRequest request, Consumer<Throwable> onFailure) {
        if (request != null) {
            request.framesReceivedAtSend = framesReceived.get();
            pending.put(request.id, request);
        }
        RpcConnectionException error;
        synchronized (this) {
            error = broken;
            if (error == null && channel == null) {
                queued.add(new Queued(frame, request, onFailure));
                return;
            }
            if (error == null) {
                // Under the lock, so frames of one connection are written in the order of the calls.
                write(frame, request, onFailure);
                return;
            }
        }
        frame.release();
        fail(request, onFailure, error);
    }

    private void write(ByteBuf frame, PendingRequest request, Consumer<Throwable> onFailure) {
        channel.writeAndFlush(frame).addListener(f -> {
            if (!f.isSuccess()) {
                fail(request, onFailure, new RpcConnectionException("Could not send to " + address + ": " + f.cause(), f.cause()));
            }
        });
    }

    private void fail(PendingRequest request, Consumer<Throwable> onFailure, RpcConnectionException error) {
        if (request != null) {
            if (pending.remove(request.id, request)) {
                owner.fail(request, new RpcConnectionException(request + " failed: " + error.getMessage(), error.getCause()));
            }
        } else if (onFailure != null) {
            onFailure.accept(error);
        }
    }

    /** The request with this id, removed: it is being answered now (or was already, or timed out: {@code null}). */
    PendingRequest take(long requestId) {
        return pending.remove(requestId);
    }

    /** A frame came from the peer (on the event loop). */
    void received() {
        framesReceived.incrementAndGet();
    }

    /**
     * Fails {@code request} (its timeout) unless it was answered already. If the peer sent nothing
     * at all since the request went out, the connection is presumed dead (a network partition, a
     * host that vanished without closing it: TCP itself would notice only after many minutes), and
     * is closed, so that the next call opens a new one and fails fast if the peer is unreachable.
     */
    void expire(PendingRequest request, Throwable error) {
        if (pending.remove(request.id, request)) {
            if (framesReceived.get() == request.framesReceivedAtSend) {
                // before the caller hears of the timeout, so that its next call opens a new connection
                close("The connection to " + address + " is presumed dead: no answer to " + request
                        + " and nothing else from " + address + " within rpc.timeout; the next call opens a new one");
            }
            owner.fail(request, error);
        }
    }

    /** The channel closed (peer gone, network error, or our close): fails everything in flight. */
    void lost(Throwable cause) {
        boolean byPeer;
        synchronized (this) {
            byPeer = !closedHere;
            if (broken == null) {
                broken = new RpcConnectionException("The connection to " + address + " was lost"
                        + (cause == null ? "" : " (" + cause + ")") + " before the answer came", cause);
            }
        }
        owner.forget(this);
        failAll(broken);
        if (byPeer) {
            owner.connectionFailed(address, cause);
        }
    }

    private void failAll(RpcConnectionException error) {
        for (PendingRequest r : List.copyOf(pending.values())) {
            if (pending.remove(r.id, r)) {
                owner.fail(r, new RpcConnectionException(r + " failed: " + error.getMessage(), error.getCause()));
            }
        }
    }

    /** Closes the channel (if open); everything in flight fails with {@code reason}. */
    void close(String reason) {
        Channel c;
        synchronized (this) {
            closedHere = true;
            if (broken == null) {
                broken = new RpcConnectionException(reason, null);
            }
            c = channel;
            for (Queued q : queued) {
                q.frame.release();
            }
            queued.clear();
        }
        owner.forget(this);
        failAll(broken);
        RpcConnectionException error = broken;
        owner.completeOffEventLoop(() -> whenOpen.completeExceptionally(error));
        if (c != null) {
            c.close();
        }
    }

    int inFlight() {
        return pending.size();
    }
}
