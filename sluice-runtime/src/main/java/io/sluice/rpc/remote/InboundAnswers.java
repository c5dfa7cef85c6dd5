package io.sluice.rpc.remote;

import io.netty.buffer.ByteBufInputStream;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.sluice.config.RpcOptions;
import java.io.IOException;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The client side of an {@link RpcService}: reads the answers arriving on the connections it
 * opened and completes the pending requests they answer (matched by request id on their
 * connection). A late answer (its request timed out) is dropped; an answer that cannot be read or
 * is above {@code rpc.max-message-size} fails its request naming why. Callers' futures complete on
 * a worker, never on the event loop. A connection's end fails everything in flight on it
 * ({@link RpcConnection#lost}). Each connection gets its own Netty handler ({@link #handlerFor});
 * they run on its event loop and never block.
 */
final class InboundAnswers {
    private static final Logger LOG = LoggerFactory.getLogger(InboundAnswers.class);

    private final RpcConnections connections;
    private final RpcSerialization.Context serialization;
    private final int maxMessageSize;
    private final RateLimitedLog receiveFailures;
    private final Supplier<RpcAddress> ownAddress;

    InboundAnswers(RpcConnections connections, RpcSerialization.Context serialization, int maxMessageSize,
                   RateLimitedLog receiveFailures, Supplier<RpcAddress> ownAddress) {
        this.connections = connections;
        this.serialization = serialization;
        this.maxMessageSize = maxMessageSize;
        this.receiveFailures = receiveFailures;
        this.ownAddress = ownAddress;
    }

    /** The Netty handler of the frames {@code connection} receives. */
    ChannelHandler handlerFor(RpcConnection connection) {
        return new Handler(connection);
    }

    private void onAnswer(RpcConnection connection, RpcFrame.Answer answer) {
        try {
            PendingRequest request = connection.take(answer.requestId());
            if (request == null) {
                LOG.debug("Answer to request {} from {} came after it timed out; dropped", answer.requestId(), connection.address);
                return;
            }
            request.cancelTimeout();
            Object value;
            try {
                value = RpcSerialization.deserialize(new ByteBufInputStream(answer.payload()), maxMessageSize, serialization);
            } catch (IOException | ClassNotFoundException | RuntimeException e) {
                connections.fail(request, new RpcException("Cannot read the answer to " + request + ": " + e, e));
                return;
            }
            if (!answer.failure()) {
                connections.completeOffEventLoop(() -> request.future.complete(value));
            } else if (value instanceof RpcMessageTooLargeException tooLarge) {
                connections.fail(request, new RpcMessageTooLargeException(request + " failed: " + tooLarge.getMessage(), tooLarge));
            } else if (value instanceof Throwable t) {
                connections.fail(request, t);
            } else {
                connections.fail(request, new RpcException(request + " failed with " + value));
            }
        } finally {
            answer.payload().release();
        }
    }

    private void onOversizedAnswer(RpcConnection connection, RpcFrame.Oversized frame) {
        PendingRequest request = connection.take(frame.requestId());
        if (request != null) {
            connections.fail(request, new RpcMessageTooLargeException("The answer to " + request + " is " + frame.length()
                    + " bytes, above this process's largest RPC message of " + maxMessageSize + " bytes; raise "
                    + RpcOptions.MAX_MESSAGE_SIZE.key() + " (on both sides)"));
        } else {
            receiveFailures.warn(connection.address + "/oversized", "Skipped an RPC frame of " + frame.length()
                    + " bytes from " + connection.address + ", above " + RpcOptions.MAX_MESSAGE_SIZE.key() + " = " + maxMessageSize);
        }
    }

    /** Inbound frames of one connection this service opened: answers. */
    private final class Handler extends SimpleChannelInboundHandler<RpcFrame> {
        private final RpcConnection connection;
        private Throwable error;

        Handler(RpcConnection connection) {
            this.connection = connection;
        }

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, RpcFrame frame) {
            connection.received();
            if (frame instanceof RpcFrame.Answer answer) {
                onAnswer(connection, answer);
            } else if (frame instanceof RpcFrame.Oversized oversized) {
                onOversizedAnswer(connection, oversized);
            } else if (frame instanceof RpcFrame.Call call) {
                call.payload().release();
                receiveFailures.warn("unexpected-call", "Ignored a call frame from " + connection.address
                        + " on a connection " + ownAddress.get() + " opened");
            }
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            error = cause;
            ctx.close();
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) throws Exception {
            connection.lost(error);
            super.channelInactive(ctx);
        }
    }
}
