package io.sluice.network.netty;

import io.netty.handler.codec.LengthFieldBasedFrameDecoder;

/** Splits the byte stream into the frames of {@link WireFormat} (4-byte length prefix, stripped). */
final class Frames {
    private Frames() {}

    static LengthFieldBasedFrameDecoder decoder(int maxFrameLength) {
        return new LengthFieldBasedFrameDecoder(maxFrameLength, 0, 4, 0, 4);
    }
}
