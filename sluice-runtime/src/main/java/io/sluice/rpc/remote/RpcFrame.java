package io.sluice.rpc.remote;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.nio.charset.StandardCharsets;
import java.util.UUID;

/**
 * The messages of the RPC wire protocol. On the wire every frame is
 * <pre>
 *   int   length of the rest of the frame (at most the receiver's rpc.max-message-size)
 *   byte  kind: 1 request, 2 one-way message, 3 answer, 4 failure
 *   long  request id (chosen by the caller, unique per connection; 0 for one-way messages)
 *   kind 1, 2: short+bytes endpoint name (UTF-8), short+bytes method signature (UTF-8),
 *              byte 0|1 fencing token present, [long, long] the token
 *   then   the payload to the frame's end: Java serialization ({@link RpcSerialization}) of the
 *          argument array (1, 2), the result (3) or the throwable (4)
 * </pre>
 * The header comes before the payload so that a receiver can answer a frame whose payload it
 * cannot read (too large, an unknown class) with a failure for that request id.
 */
sealed interface RpcFrame {
    byte REQUEST = 1;
    byte ONE_WAY = 2;
    byte ANSWER = 3;
    byte FAILURE = 4;

    /** Bytes of the length prefix, the kind and the request id: what a receiver reads of any frame. */
    int PREFIX_BYTES = 4 + 1 + 8;

    long requestId();

    /** A request or a one-way message (request id 0). */
    record Call(boolean oneWay, long requestId, String endpoint, String method, UUID fencingToken, ByteBuf payload)
            implements RpcFrame {
    }

    /** The answer to a request: a result ({@code failure} false) or a throwable. */
    record Answer(long requestId, boolean failure, ByteBuf payload) implements RpcFrame {
    }

    /**
     * A frame the decoder skipped because it was larger than the receiver's limit; only its kind and
     * request id were read.
     */
    record Oversized(byte kind, long requestId, long length) implements RpcFrame {
    }

    /** Encodes a call; {@code payload} is the serialized argument array. Returns the whole frame. */
    static ByteBuf encodeCall(ByteBufAllocator alloc, boolean oneWay, long requestId, String endpoint, String method,
                              UUID fencingToken, byte[] payload) {
        byte[] endpointBytes = endpoint.getBytes(StandardCharsets.UTF_8);
        byte[] methodBytes = method.getBytes(StandardCharsets.UTF_8);
        int length = 1 + 8 + 2 + endpointBytes.length + 2 + methodBytes.length + 1 + (fencingToken == null ? 0 : 16)
                + payload.length;
        ByteBuf buf = alloc.buffer(4 + length);
        buf.writeInt(length);
        buf.writeByte(oneWay ? ONE_WAY : REQUEST);
        buf.writeLong(requestId);
        buf.writeShort(endpointBytes.length).writeBytes(endpointBytes);
        buf.writeShort(methodBytes.length).writeBytes(methodBytes);
        if (fencingToken == null) {
            buf.writeByte(0);
        } else {
            buf.writeByte(1).writeLong(fencingToken.getMostSignificantBits()).writeLong(fencingToken.getLeastSignificantBits());
        }
        buf.writeBytes(payload);
        return buf;
    }

    /** The frame size of a call, as {@link #encodeCall} would write it (without the length prefix). */
    static long callFrameLength(String endpoint, String method, UUID fencingToken, int payloadLength) {
        return 1 + 8 + 2 + (long) endpoint.getBytes(StandardCharsets.UTF_8).length + 2
                + method.getBytes(StandardCharsets.UTF_8).length + 1 + (fencingToken == null ? 0 : 16) + payloadLength;
    }

    static ByteBuf encodeAnswer(ByteBufAllocator alloc, long requestId, boolean failure, byte[] payload) {
        ByteBuf buf = alloc.buffer(4 + 9 + payload.length);
        buf.writeInt(9 + payload.length);
        buf.writeByte(failure ? FAILURE : ANSWER);
        buf.writeLong(requestId);
        buf.writeBytes(payload);
        return buf;
    }

    /** Decodes a frame without its length prefix; the returned frame's payload is a retained slice of {@code frame}. */
    static RpcFrame decode(ByteBuf frame) {
        byte kind = frame.readByte();
        long requestId = frame.readLong();
        switch (kind) {
            case REQUEST, ONE_WAY -> {
                String endpoint = readString(frame);
                String method = readString(frame);
                UUID token = frame.readByte() == 0 ? null : new UUID(frame.readLong(), frame.readLong());
                return new Call(kind == ONE_WAY, requestId, endpoint, method, token, frame.readRetainedSlice(frame.readableBytes()));
            }
            case ANSWER, FAILURE -> {
                return new Answer(requestId, kind == FAILURE, frame.readRetainedSlice(frame.readableBytes()));
            }
            default -> throw new IllegalArgumentException("Unknown RPC frame kind " + kind
                    + ": the peer speaks another protocol (is this port a Sluice RPC port?)");
        }
    }

    private static String readString(ByteBuf frame) {
        int n = frame.readUnsignedShort();
        return frame.readCharSequence(n, StandardCharsets.UTF_8).toString();
    }
}
