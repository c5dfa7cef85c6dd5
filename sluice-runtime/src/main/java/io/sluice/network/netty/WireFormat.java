package io.sluice.network.netty;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.sluice.graph.JobId;
import io.sluice.network.ChannelKey;
import io.sluice.network.CheckpointBarrier;
import io.sluice.network.EndOfPartition;
import io.sluice.network.IdleStatus;
import io.sluice.network.NetworkEvent;
import io.sluice.network.Watermark;
import java.nio.charset.StandardCharsets;

/**
 * The frames of the data-exchange protocol. Every frame is {@code int length} (of what follows),
 * {@code byte type}, {@code int channelId} (chosen by the consumer's side per connection; 0 in
 * HELLO), then the type's body, all big-endian:
 *
 * <pre>
 * consumer → producer
 *   HELLO    magic "SLDX", int version                  first frame of a connection
 *   REQUEST  int credits, key (job id, attempt, edge, producer subtask, consumer subtask)
 *   CREDIT   int credits                                 slots the consumer's task freed
 *   CANCEL   utf reason                                  the consumer released its end
 * producer → consumer
 *   DATA     the buffer's bytes (the rest of the frame)  costs one credit
 *   EVENT    byte kind, long a, long b                   costs one credit
 *   RELEASED utf reason                                  the producer released its end
 * </pre>
 *
 * Stateless; any thread.
 */
final class WireFormat {
    static final int MAGIC = 0x534c4458; // "SLDX"
    static final int VERSION = 1;

    static final byte HELLO = 0;
    static final byte REQUEST = 1;
    static final byte CREDIT = 2;
    static final byte CANCEL = 3;
    static final byte DATA = 4;
    static final byte EVENT = 5;
    static final byte RELEASED = 6;

    static final byte BARRIER = 1;
    static final byte END_OF_PARTITION = 2;
    static final byte WATERMARK = 3;
    static final byte IDLE = 4;
    static final byte ACTIVE = 5;
    /** The barrier of a savepoint (a full snapshot in the canonical format). */
    static final byte SAVEPOINT_BARRIER = 6;

    /** length + type + channel id. */
    static final int HEADER = 4 + 1 + 4;
    /** Reasons are cut to this many characters; they are messages for people, not data. */
    private static final int MAX_REASON = 2000;

    private WireFormat() {}

    static ByteBuf hello(ByteBufAllocator alloc) {
        ByteBuf b = header(alloc, HELLO, 0, 8);
        b.writeInt(MAGIC);
        b.writeInt(VERSION);
        return b;
    }

    static ByteBuf request(ByteBufAllocator alloc, int channelId, int credits, ChannelKey key) {
        byte[] job = key.jobId().value().getBytes(StandardCharsets.US_ASCII);
        ByteBuf b = header(alloc, REQUEST, channelId, 4 + 2 + job.length + 16);
        b.writeInt(credits);
        b.writeShort(job.length);
        b.writeBytes(job);
        b.writeInt(key.attempt());
        b.writeInt(key.edgeId());
        b.writeInt(key.producerSubtask());
        b.writeInt(key.consumerSubtask());
        return b;
    }

    static ChannelKey readKey(ByteBuf frame) {
        int length = frame.readUnsignedShort();
        String job = frame.readCharSequence(length, StandardCharsets.US_ASCII).toString();
        return new ChannelKey(JobId.of(job), frame.readInt(), frame.readInt(), frame.readInt(), frame.readInt());
    }

    static ByteBuf credit(ByteBufAllocator alloc, int channelId, int credits) {
        ByteBuf b = header(alloc, CREDIT, channelId, 4);
        b.writeInt(credits);
        return b;
    }

    static ByteBuf withReason(ByteBufAllocator alloc, byte type, int channelId, String reason) {
        String r = reason == null ? "" : reason.length() > MAX_REASON ? reason.substring(0, MAX_REASON) + "…" : reason;
        byte[] utf = r.getBytes(StandardCharsets.UTF_8);
        ByteBuf b = header(alloc, type, channelId, 4 + utf.length);
        b.writeInt(utf.length);
        b.writeBytes(utf);
        return b;
    }

    static String readReason(ByteBuf frame) {
        int length = frame.readInt();
        return frame.readCharSequence(length, StandardCharsets.UTF_8).toString();
    }

    static ByteBuf data(ByteBufAllocator alloc, int channelId, byte[] bytes, int length) {
        ByteBuf b = header(alloc, DATA, channelId, length);
        b.writeBytes(bytes, 0, length);
        return b;
    }

    static ByteBuf event(ByteBufAllocator alloc, int channelId, NetworkEvent event) {
        ByteBuf b = header(alloc, EVENT, channelId, 1 + 8 + 8);
        if (event instanceof CheckpointBarrier barrier) {
            b.writeByte(barrier.savepoint() ? SAVEPOINT_BARRIER : BARRIER).writeLong(barrier.checkpointId()).writeLong(barrier.timestampMillis());
        } else if (event instanceof Watermark watermark) {
            b.writeByte(WATERMARK).writeLong(watermark.timestamp()).writeLong(0);
        } else if (event == IdleStatus.IDLE) {
            b.writeByte(IDLE).writeLong(0).writeLong(0);
        } else if (event == IdleStatus.ACTIVE) {
            b.writeByte(ACTIVE).writeLong(0).writeLong(0);
        } else if (event == EndOfPartition.INSTANCE) {
            b.writeByte(END_OF_PARTITION).writeLong(0).writeLong(0);
        } else {
            b.release();
            throw new IllegalArgumentException("No wire format for network event " + event);
        }
        return b;
    }

    static NetworkEvent readEvent(ByteBuf frame) {
        byte kind = frame.readByte();
        long a = frame.readLong();
        long b = frame.readLong();
        return switch (kind) {
            case BARRIER -> new CheckpointBarrier(a, b);
            case SAVEPOINT_BARRIER -> new CheckpointBarrier(a, b, true);
            case WATERMARK -> new Watermark(a);
            case IDLE -> IdleStatus.IDLE;
            case ACTIVE -> IdleStatus.ACTIVE;
            case END_OF_PARTITION -> EndOfPartition.INSTANCE;
            default -> throw new IllegalArgumentException("Unknown network event kind " + kind
                    + " in a data-exchange frame (a peer of another Sluice version?)");
        };
    }

    private static ByteBuf header(ByteBufAllocator alloc, byte type, int channelId, int bodyLength) {
        ByteBuf b = alloc.buffer(HEADER + bodyLength);
        b.writeInt(1 + 4 + bodyLength);
        b.writeByte(type);
        b.writeInt(channelId);
        return b;
    }
}
