package io.sluice.rpc.remote;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.sluice.security.tls.InternalTls;
import java.net.InetSocketAddress;
import java.util.function.Supplier;

/**
 * The listening side of an {@link RpcService}: binds the server socket and gives every accepted
 * connection a frame decoder, the shared {@link InboundCalls} that dispatches its calls and, with
 * TLS on, the mutual-TLS handlers in front of both. Accepted channels join the service's channel
 * group, so that its close closes them. Made once, on the thread that starts the service.
 */
final class RpcServer {
    private final Channel channel;

    private RpcServer(Channel channel) {
        this.channel = channel;
    }

    /**
     * Binds {@code host:port} (port 0: a free one) and waits for it.
     *
     * @param tls     mutual TLS on every accepted connection, or {@code null} for plain TCP
     * @param address the service's advertised address, for TLS error messages (asked only later)
     * @throws RpcException naming the address when it cannot listen
     */
    static RpcServer bind(String host, int port, RpcThreads threads, ChannelGroup channels, int maxMessageSize,
                          InboundCalls calls, InternalTls tls, Supplier<RpcAddress> address) {
        ServerBootstrap server = new ServerBootstrap()
                .group(threads.eventLoops())
                .channel(NioServerSocketChannel.class)
                .option(ChannelOption.SO_REUSEADDR, true) // a restarted process gets its fixed port back at once
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childOption(ChannelOption.SO_KEEPALIVE, true)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        channels.add(ch);
                        ch.pipeline().addLast(new RpcFrameDecoder(maxMessageSize), calls);
                        if (tls != null) {
                            tls.addServerHandlers(ch.pipeline(), ch.alloc(), "RPC port " + address.get());
                        }
                    }
                });
        ChannelFuture bound = server.bind(host, port).awaitUninterruptibly();
        if (!bound.isSuccess()) {
            throw new RpcException("Cannot listen for RPC on " + host + ":" + port + " (" + bound.cause()
                    + "); choose another rpc port (0 picks a free one) or stop the process holding it", bound.cause());
        }
        channels.add(bound.channel());
        return new RpcServer(bound.channel());
    }

    /** The bound socket address. */
    InetSocketAddress localAddress() {
        return (InetSocketAddress) channel.localAddress();
    }

    /** The port bound (the one picked when 0 was asked for). */
    int port() {
        return localAddress().getPort();
    }
}
