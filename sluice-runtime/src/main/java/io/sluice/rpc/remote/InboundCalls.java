package io.sluice.rpc.remote;

import io.netty.buffer.ByteBufInputStream;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.sluice.concurrent.Futures;
import io.sluice.config.RpcOptions;
import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The server side of an {@link RpcService}: takes the calls arriving on the connections it
 * accepted, checks endpoint, method and fencing token, deserializes the arguments and invokes the
 * exposed object (on the connection's event loop, so calls of one connection run in their order;
 * gateway methods never block), and sends each request's answer from a worker thread once its
 * future completes. One instance serves every accepted connection.
 */
@ChannelHandler.Sharable
final class InboundCalls extends SimpleChannelInboundHandler<RpcFrame> {
    private static final Logger LOG = LoggerFactory.getLogger(InboundCalls.class);

    private final Supplier<RpcAddress> ownAddress;
    private final EndpointRegistry endpoints;
    private final int maxMessageSize;
    private final RpcSerialization.Context serialization;
    private final RpcThreads threads;
    private final RateLimitedLog receiveFailures;

    /** @param ownAddress the service's advertised address, for messages (asked only once calls arrive) */
    InboundCalls(Supplier<RpcAddress> ownAddress, EndpointRegistry endpoints, int maxMessageSize,
                 RpcSerialization.Context serialization, RpcThreads threads, RateLimitedLog receiveFailures) {
        this.ownAddress = ownAddress;
        this.endpoints = endpoints;
        this.maxMessageSize = maxMessageSize;
        this.serialization = serialization;
        this.threads = threads;
        this.receiveFailures = receiveFailures;
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, RpcFrame frame) {
        if (frame instanceof RpcFrame.Call call) {
            onCall(ctx.channel(), call);
        } else if (frame instanceof RpcFrame.Oversized oversized) {
            onOversizedCall(ctx.channel(), oversized);
        } else if (frame instanceof RpcFrame.Answer answer) {
            answer.payload().release();
            receiveFailures.warn("unexpected-answer", "Ignored an answer frame from " + ctx.channel().remoteAddress()
                    + " on the server side of " + ownAddress.get());
        }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        receiveFailures.warn("server-error", "Closing the RPC connection from " + ctx.channel().remoteAddress()
                + " to " + ownAddress.get() + ": " + cause);
        ctx.close();
    }

    /** What a call is for: the endpoint, its object (held while the call runs) and the method. */
    private record CallTarget(Endpoint endpoint, Object object, Method method) {
    }

    private void onCall(Channel channel, RpcFrame.Call call) {
        String what = call.endpoint() + "." + methodName(call.method());
        try {
            CallTarget target = resolve(call);
            what = GatewayInterfaces.describe(target.method()) + " on '" + call.endpoint() + "'";
            target.endpoint().checkFencing(call.fencingToken(), target.method(), ownAddress.get());
            Object result = invoke(target, call, what);
            if (!call.oneWay()) {
                if (!(result instanceof CompletableFuture<?> future)) {
                    throw new RpcException(what + " on " + ownAddress.get() + " returned no future");
                }
                String answered = what;
                future.whenCompleteAsync((value, error) -> answer(channel, call.requestId(), answered, value, error),
                        threads.workers());
            }
        } catch (Throwable t) {
            if (call.oneWay()) {
                receiveFailures.warn(call.endpoint() + "/" + call.method(), "One-way message " + what + " from "
                        + channel.remoteAddress() + " failed on " + ownAddress.get() + ": " + t);
            } else {
                String failed = what;
                threads.completeOffEventLoop(() -> answer(channel, call.requestId(), failed, null, t));
            }
        } finally {
            call.payload().release();
        }
    }

    /** The endpoint and method a call names; fails naming what is missing. */
    private CallTarget resolve(RpcFrame.Call call) {
        Endpoint endpoint = endpoints.get(call.endpoint());
        Object target = endpoint == null ? null : endpoint.target();
        if (target == null) {
            throw new RpcEndpointNotFoundException("No endpoint '" + call.endpoint() + "' on " + ownAddress.get()
                    + " for " + methodName(call.method()) + ": the object exposed under that name ended (a job master that"
                    + " finished, say), or this process does not serve it (it is not the leader). Exposed here: "
                    + firstNames(10));
        }
        Method method = endpoint.method(call.method());
        if (method == null) {
            throw new RpcException("Endpoint '" + call.endpoint() + "' on " + ownAddress.get() + " ("
                    + endpoint.interfaces.get(0).getSimpleName() + ") has no method " + call.method()
                    + ": caller and callee run different Sluice versions");
        }
        return new CallTarget(endpoint, target, method);
    }

    /** Reads the arguments (through the message-type filter) and invokes the method; its own exception is rethrown. */
    private Object invoke(CallTarget target, RpcFrame.Call call, String what) throws Throwable {
        Object[] args;
        try {
            args = (Object[]) RpcSerialization.deserialize(new ByteBufInputStream(call.payload()), maxMessageSize,
                    serialization);
        } catch (IOException | ClassNotFoundException | RuntimeException e) {
            throw new RpcException("Cannot read the arguments of " + what + " on " + ownAddress.get() + ": " + e, e);
        }
        try {
            return target.method().invoke(target.object(), args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }

    private void onOversizedCall(Channel channel, RpcFrame.Oversized frame) {
        String message = "A request of " + frame.length() + " bytes reached " + ownAddress.get()
                + ", above its largest RPC message of " + maxMessageSize + " bytes (" + RpcOptions.MAX_MESSAGE_SIZE.key()
                + "); raise it on both sides or send less";
        if (frame.kind() == RpcFrame.REQUEST) {
            RpcMessageTooLargeException error = new RpcMessageTooLargeException(message);
            threads.completeOffEventLoop(() -> answer(channel, frame.requestId(), null, null, error));
        } else {
            receiveFailures.warn("oversized-one-way", "Dropped a one-way message from " + channel.remoteAddress()
                    + ": " + message);
        }
    }

    /** Sends the answer to a request (on a worker thread). */
    private void answer(Channel channel, long requestId, String what, Object value, Throwable error) {
        error = Futures.unwrap(error);
        byte[] payload;
        boolean failure = error != null;
        try {
            payload = RpcSerialization.serialize(failure ? error : value, serialization);
        } catch (IOException | RuntimeException e) {
            failure = true;
            payload = serializedFailure(new RpcException("Cannot send the answer of " + what + " from " + ownAddress.get() + ": "
                    + (e instanceof IOException io ? RpcSerialization.describe(io) : e.toString())));
        }
        if (9L + payload.length > maxMessageSize) {
            failure = true;
            payload = serializedFailure(new RpcMessageTooLargeException("The answer of " + what + " from " + ownAddress.get()
                    + " is " + (9L + payload.length) + " bytes, above its largest RPC message of " + maxMessageSize
                    + " bytes; raise " + RpcOptions.MAX_MESSAGE_SIZE.key() + " (on both sides)"));
        }
        if (!channel.isActive()) {
            LOG.debug("Answer to {} not sent: the caller's connection from {} is closed", what, channel.remoteAddress());
            return;
        }
        channel.writeAndFlush(RpcFrame.encodeAnswer(channel.alloc(), requestId, failure, payload));
    }

    private byte[] serializedFailure(RpcException e) {
        try {
            return RpcSerialization.serialize(e, serialization);
        } catch (IOException impossible) {
            throw new IllegalStateException(impossible);
        }
    }

    private static String methodName(String signature) {
        int paren = signature.indexOf('(');
        return paren < 0 ? signature : signature.substring(0, paren);
    }

    private String firstNames(int n) {
        List<String> names = endpoints.names();
        return names.size() <= n ? names.toString() : names.subList(0, n) + " and " + (names.size() - n) + " more";
    }
}
