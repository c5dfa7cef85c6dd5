package io.sluice.rpc.remote;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.DecoderException;
import java.nio.charset.StandardCharsets;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** Frames split and joined at every boundary; an oversized frame is reported and skipped, never buffered. */
class RpcFrameDecoderTest {

    private static ByteBuf call(long id, int payloadBytes) {
        return RpcFrame.encodeCall(ByteBufAllocator.DEFAULT, false, id, "echo", "echo(java.lang.String)",
                new UUID(1, 2), new byte[payloadBytes]);
    }

    @Test
    void framesArriveWholeWhateverTheChunking() {
        EmbeddedChannel channel = new EmbeddedChannel(new RpcFrameDecoder(1 << 16));
        ByteBuf all = Unpooled.wrappedBuffer(call(1, 10), call(2, 1000), call(3, 0));
        while (all.isReadable()) {
            channel.writeInbound(all.readRetainedSlice(Math.min(7, all.readableBytes())));
        }
        all.release();
        for (long id = 1; id <= 3; id++) {
            RpcFrame.Call c = channel.readInbound();
            assertThat(c.requestId()).isEqualTo(id);
            assertThat(c.endpoint()).isEqualTo("echo");
            assertThat(c.method()).isEqualTo("echo(java.lang.String)");
            assertThat(c.fencingToken()).isEqualTo(new UUID(1, 2));
            c.payload().release();
        }
        assertThat((Object) channel.readInbound()).isNull();
        channel.finishAndReleaseAll();
    }

    @Test
    void anOversizedFrameIsReportedWithItsRequestIdAndSkippedAsItArrives() {
        EmbeddedChannel channel = new EmbeddedChannel(new RpcFrameDecoder(65536));
        ByteBuf big = call(7, 200_000);
        int total = big.readableBytes();
        channel.writeInbound(big.readRetainedSlice(20));
        RpcFrame.Oversized oversized = channel.readInbound();
        assertThat(oversized.requestId()).isEqualTo(7);
        assertThat(oversized.kind()).isEqualTo(RpcFrame.REQUEST);
        assertThat(oversized.length()).isEqualTo(total - 4);
        while (big.isReadable()) {
            channel.writeInbound(big.readRetainedSlice(Math.min(50_000, big.readableBytes())));
            assertThat((Object) channel.readInbound()).isNull();
        }
        big.release();
        channel.writeInbound(call(8, 5));
        RpcFrame.Call next = channel.readInbound();
        assertThat(next.requestId()).as("the frame after the skipped one").isEqualTo(8);
        next.payload().release();
        channel.finishAndReleaseAll();
    }

    @Test
    void anotherProtocolIsRefusedWithAClearError() {
        EmbeddedChannel channel = new EmbeddedChannel(new RpcFrameDecoder(65536));
        assertThatThrownBy(() -> channel.writeInbound(Unpooled.copiedBuffer("GET / HTTP/1.1\r\nHost: x\r\n\r\n",
                StandardCharsets.US_ASCII)))
                .isInstanceOf(DecoderException.class).hasMessageContaining("another protocol");
        channel.finishAndReleaseAll();
    }
}
