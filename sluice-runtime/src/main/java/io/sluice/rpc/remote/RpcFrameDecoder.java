package io.sluice.rpc.remote;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.handler.codec.CorruptedFrameException;
import java.util.List;

/**
 * Splits the byte stream into {@link RpcFrame}s by their 4-byte length prefix, as Netty's
 * length-field decoder does, but keeps the connection usable when a frame is above the limit: it
 * reads only the frame's kind and request id, emits an {@link RpcFrame.Oversized} for it (so the
 * receiver can fail that one call with a clear error) and skips the rest of the frame as it
 * arrives, never buffering it. Runs on the channel's event loop.
 */
final class RpcFrameDecoder extends ByteToMessageDecoder {
    private final int maxFrameLength;
    private long bytesToSkip;
    private boolean corrupted;

    RpcFrameDecoder(int maxFrameLength) {
        this.maxFrameLength = maxFrameLength;
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        if (corrupted) {
            in.skipBytes(in.readableBytes()); // the connection is being closed
            return;
        }
        while (true) {
            if (!skipRestOfOversized(in)) {
                return;
            }
            if (in.readableBytes() < 4) {
                return;
            }
            long length = in.getUnsignedInt(in.readerIndex());
            if (length < 9) {
                throw corrupted(in, "RPC frame of " + length + " bytes is shorter than its header:"
                        + " the peer speaks another protocol (is this port a Sluice RPC port?)");
            }
            if (length > maxFrameLength) {
                if (!startSkippingOversized(in, length, out)) {
                    return;
                }
                continue;
            }
            if (in.readableBytes() < 4 + length) {
                return;
            }
            in.skipBytes(4);
            ByteBuf frame = in.readSlice((int) length);
            try {
                out.add(RpcFrame.decode(frame));
            } catch (IllegalArgumentException | IndexOutOfBoundsException e) {
                throw corrupted(in, "Unreadable RPC frame (" + e.getMessage() + ")");
            }
        }
    }

    /** Skips what arrived of the oversized frame being skipped; {@code false} while more of it is to come. */
    private boolean skipRestOfOversized(ByteBuf in) {
        if (bytesToSkip > 0) {
            int skip = (int) Math.min(bytesToSkip, in.readableBytes());
            in.skipBytes(skip);
            bytesToSkip -= skip;
        }
        return bytesToSkip == 0;
    }

    /**
     * Reads the kind and request id of a frame above the limit, passes them on as
     * {@link RpcFrame.Oversized} and starts skipping the rest; {@code false} until that prefix arrived.
     */
    private boolean startSkippingOversized(ByteBuf in, long length, List<Object> out) {
        if (in.readableBytes() < RpcFrame.PREFIX_BYTES) {
            return false;
        }
        byte kind = in.getByte(in.readerIndex() + 4);
        if (kind < RpcFrame.REQUEST || kind > RpcFrame.FAILURE) {
            throw corrupted(in, "Not an RPC frame (kind " + kind + ", length " + length
                    + "): the peer speaks another protocol (is this port a Sluice RPC port?)");
        }
        in.skipBytes(5);
        long requestId = in.readLong();
        bytesToSkip = length - 9;
        out.add(new RpcFrame.Oversized(kind, requestId, length));
        return true;
    }

    /** Drops everything after a frame that is not ours: the handler closes the connection. */
    private CorruptedFrameException corrupted(ByteBuf in, String message) {
        corrupted = true;
        in.skipBytes(in.readableBytes());
        return new CorruptedFrameException(message);
    }
}
