package io.sluice.rpc.remote;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.sluice.config.RpcOptions;
import java.io.IOException;
import java.lang.reflect.Method;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * The calls an {@link RpcService}'s proxies make ({@link RemoteGatewayHandler}): each becomes a
 * frame (arguments serialized on the calling thread, CPU only, checked against
 * {@code rpc.max-message-size}) sent on the one connection to its address. A request is registered
 * there as a {@link PendingRequest} under a fresh id and fails after {@code rpc.timeout} unless
 * answered ({@link InboundAnswers}); a one-way message that cannot be delivered is logged at WARN,
 * at most every 10 s per target. Thread-safe; never blocks.
 */
final class OutboundCalls {
    private static final Object[] NO_ARGS = new Object[0];

    private final RpcConnections connections;
    private final RpcSerialization.Context serialization;
    private final ScheduledExecutorService timer;
    private final RpcLimits limits;
    private final RateLimitedLog sendFailures;
    private final Supplier<RpcAddress> ownAddress;
    private final AtomicLong nextRequestId = new AtomicLong();

    OutboundCalls(RpcConnections connections, RpcSerialization.Context serialization, ScheduledExecutorService timer,
                  RpcLimits limits, RateLimitedLog sendFailures, Supplier<RpcAddress> ownAddress) {
        this.connections = connections;
        this.serialization = serialization;
        this.timer = timer;
        this.limits = limits;
        this.sendFailures = sendFailures;
        this.ownAddress = ownAddress;
    }

    /** Calls {@code method} as a request: the future completes with the answer, or fails naming the call and the target. */
    CompletableFuture<Object> request(RemoteGatewayHandler target, Method method, Object[] args) {
        CompletableFuture<Object> result = new CompletableFuture<>();
        String what = GatewayInterfaces.describe(method);
        String where = "'" + target.endpoint + "' at " + target.address;
        long id = nextRequestId.incrementAndGet();
        ByteBuf frame;
        try {
            frame = encode(false, id, target, method, args, what, where);
        } catch (RpcException e) {
            result.completeExceptionally(e);
            return result;
        }
        PendingRequest request = new PendingRequest(id, what, where, result);
        RpcConnection connection = connections.connectionTo(target.address);
        try {
            request.timeout = timer.schedule(() -> connection.expire(request, new RpcTimeoutException(what + " to "
                    + where + " got no answer within " + limits.timeoutMillis() + " ms (rpc.timeout); the remote side"
                    + " is slow, stuck or gone")), limits.timeoutMillis(), TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException closing) {
            frame.release();
            result.completeExceptionally(new RpcException("Cannot call " + what + " on " + where + ": the RPC service at "
                    + ownAddress.get() + " is closed"));
            return result;
        }
        connection.send(frame, request, null);
        return result;
    }

    /** Sends {@code method} as a one-way message; a failure to deliver it is logged, never thrown. */
    void tell(RemoteGatewayHandler target, Method method, Object[] args) {
        String what = GatewayInterfaces.describe(method);
        String where = "'" + target.endpoint + "' at " + target.address;
        ByteBuf frame;
        try {
            frame = encode(true, 0, target, method, args, what, where);
        } catch (RpcException e) {
            sendFailures.warn(target.address + "/" + what, "Dropped the one-way message " + what + ": " + e.getMessage());
            return;
        }
        connections.connectionTo(target.address).send(frame, null, error -> sendFailures.warn(target.address.toString(),
                "Could not deliver the one-way message " + what + " to " + where + ": " + error.getMessage()));
    }

    private ByteBuf encode(boolean oneWay, long id, RemoteGatewayHandler target, Method method, Object[] args,
                           String what, String where) {
        if (connections.isClosed()) {
            throw new RpcException("Cannot call " + what + " on " + where + ": the RPC service at " + ownAddress.get()
                    + " is closed");
        }
        byte[] payload;
        try {
            payload = RpcSerialization.serialize(args == null ? NO_ARGS : args, serialization);
        } catch (IOException | RuntimeException e) {
            throw new RpcException("Cannot call " + what + " on " + where + ": its arguments cannot be serialized ("
                    + (e instanceof IOException io ? RpcSerialization.describe(io) : e.toString()) + ")", e);
        }
        String signature = GatewayInterfaces.signature(method);
        long length = RpcFrame.callFrameLength(target.endpoint, signature, target.fencingToken, payload.length);
        if (length > limits.maxMessageSize()) {
            throw new RpcMessageTooLargeException("Cannot call " + what + " on " + where + ": the call is " + length
                    + " bytes, above the largest RPC message of " + limits.maxMessageSize() + " bytes; raise "
                    + RpcOptions.MAX_MESSAGE_SIZE.key() + " (on both sides) or send less");
        }
        return RpcFrame.encodeCall(ByteBufAllocator.DEFAULT, oneWay, id, target.endpoint, signature, target.fencingToken,
                payload);
    }
}
