package io.sluice.rpc.remote;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.Unpooled;
import io.netty.channel.ConnectTimeoutException;
import io.netty.channel.embedded.EmbeddedChannel;
import io.sluice.config.Configuration;
import io.sluice.config.RpcOptions;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** What a caller hears when a connection cannot be opened, without waiting for a real connect timeout. */
class RpcConnectionTest {
    @Test
    void aConnectTimeoutFailsQueuedCallsNamingTheAddressAndTheKey() throws Exception {
        try (RpcService service = RpcService.builder().bind("127.0.0.1", 0)
                .configuration(new Configuration().set(RpcOptions.CONNECT_TIMEOUT, Duration.ofMillis(1234))).start()) {
            RpcAddress blackhole = new RpcAddress("10.0.0.1", 6123);
            RpcConnection connection = new RpcConnection(service.connections(), blackhole);
            CompletableFuture<Object> future = new CompletableFuture<>();
            PendingRequest request = new PendingRequest(1, "TaskExecutorGateway.submitTask", "'taskexecutor' at " + blackhole,
                    future);
            connection.send(Unpooled.buffer(8).writeLong(1), request, null); // queued until connected
            assertThat(connection.inFlight()).isEqualTo(1);

            EmbeddedChannel channel = new EmbeddedChannel();
            connection.connected(null, new ConnectTimeoutException("connection timed out: /10.0.0.1:6123"));

            Throwable error;
            try {
                future.get(10, TimeUnit.SECONDS);
                throw new AssertionError("expected a failure");
            } catch (ExecutionException e) {
                error = e.getCause();
            }
            assertThat(error).isInstanceOf(RpcConnectionException.class)
                    .hasMessageContaining("TaskExecutorGateway.submitTask to 'taskexecutor' at 10.0.0.1:6123 failed")
                    .hasMessageContaining("Cannot reach 10.0.0.1:6123 (no connection within 1234 ms, rpc.connect-timeout)");
            assertThat(connection.inFlight()).isZero();
            channel.finishAndReleaseAll();
        }
    }

    /**
     * Frames queued while connecting are written before any call made once the channel is there: a
     * call racing the flush of the queue (started from inside the write of the first queued frame)
     * must not overtake it.
     */
    @Test
    void framesQueuedWhileConnectingKeepTheirOrderAgainstLaterCalls() throws Exception {
        try (RpcService service = RpcService.builder().bind("127.0.0.1", 0).start()) {
            RpcConnection connection = new RpcConnection(service.connections(), new RpcAddress("127.0.0.1", 1));
            java.util.List<Long> written = new java.util.concurrent.CopyOnWriteArrayList<>();
            java.util.concurrent.atomic.AtomicBoolean raced = new java.util.concurrent.atomic.AtomicBoolean();
            EmbeddedChannel channel = new EmbeddedChannel(new io.netty.channel.ChannelOutboundHandlerAdapter() {
                @Override
                public void write(io.netty.channel.ChannelHandlerContext ctx, Object msg, io.netty.channel.ChannelPromise p)
                        throws Exception {
                    if (raced.compareAndSet(false, true)) {
                        Thread racer = new Thread(() -> connection.send(Unpooled.buffer(8).writeLong(3), null, null));
                        racer.start();
                        racer.join(500); // bounded: a correct connection holds the racer back until the queue is written
                    }
                    io.netty.buffer.ByteBuf b = (io.netty.buffer.ByteBuf) msg;
                    written.add(b.getLong(0));
                    b.release();
                    p.setSuccess();
                }
            });
            connection.send(Unpooled.buffer(8).writeLong(1), null, null);
            connection.send(Unpooled.buffer(8).writeLong(2), null, null);
            connection.connected(channel, null);
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> written.size() == 3);
            assertThat(written).containsExactly(1L, 2L, 3L);
            channel.finishAndReleaseAll();
        }
    }
}
