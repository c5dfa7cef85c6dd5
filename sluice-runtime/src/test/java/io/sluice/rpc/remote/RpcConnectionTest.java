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
            RpcConnection connection = new RpcConnection(service, blackhole);
            CompletableFuture<Object> future = new CompletableFuture<>();
            PendingRequest request = new PendingRequest(1, "TaskExecutorGateway.submitTask", "'taskexecutor' at " + blackhole,
                    future);
            connection.send(Unpooled.buffer(8).writeLong(1), request, null); // queued until connected
            assertThat(connection.inFlight()).isEqualTo(1);

            EmbeddedChannel channel = new EmbeddedChannel();
            connection.connected(channel.newFailedFuture(new ConnectTimeoutException("connection timed out: /10.0.0.1:6123")));

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
}
