package io.sluice.network;

import io.sluice.api.functions.KeySelector;
import io.sluice.core.serialization.DataOutputBuffer;
import io.sluice.core.serialization.TypeSerializer;
import io.sluice.operators.RecordTimestamp;
import io.sluice.state.KeyGroups;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.function.LongSupplier;

/**
 * Writes the records of one output edge of a producer subtask into its channels.
 *
 * <p>Each record is serialized straight into the byte buffer of its target channel. Once a buffer
 * holds {@code bufferSize} bytes or more it is handed to the channel whole (its array is swapped,
 * not copied), which may block while the channel is full: that is backpressure. So the per-record
 * path takes no lock, allocates nothing and writes no volatile field; only each full buffer does.
 * A buffer's array has some headroom beyond {@code bufferSize} so that the record crossing the
 * threshold rarely makes it grow; a record larger than the headroom still works (the array grows).
 * With an in-flight target, a {@link BufferDebloater} lowers the hand-over size below
 * {@code bufferSize} while the consumers backpressure this writer, so that its channels hold about
 * that target's worth of records (and a checkpoint barrier waits behind no more).
 *
 * <p>Threading: owned by the producer's task thread, which alone calls every method except
 * {@link #recordsWritten()}, {@link #buffersSent()}, {@link #blockedNanos()} and {@link #handOverSize()}. Those read plain fields racily, which is
 * fine for metrics (a value may be slightly stale) and keeps the hot path free of volatile writes.
 */
public final class RecordWriter<T> {
    private static final int FORWARD = 0;
    private static final int REBALANCE = 1;
    private static final int HASH = 2;

    private final LocalChannel[] channels;
    private final DataOutputBuffer[] outputs;
    private final TypeSerializer<T> serializer;
    private final Partitioner<T> partitioner;
    private final int bufferSize;
    private final BufferDebloater debloater;
    /** The size at which a buffer is handed over now: {@code bufferSize}, or less while backpressured. */
    private int handOverSize;
    private final BufferPool pool;
    private final int mode;
    private final KeySelector<T, ?> keySelector;
    private final int maxParallelism;
    private final int[] keyGroupToChannel;
    /** The task's record timestamps, written before each record; {@code null} on an edge without timestamps. */
    private final RecordTimestamp timestamps;

    private int nextRebalanceChannel;
    /** Why the writer cannot be used any more, or {@code null} while it can. */
    private String unusable;
    private long records;
    private long buffers;

    /**
     * @param channels one per consumer subtask that {@link Partitioner#consumerSubtasks} lists, in that order
     * @param bufferSize the number of bytes at which a buffer is handed to its channel
     */
    public RecordWriter(List<LocalChannel> channels, TypeSerializer<T> serializer, Partitioner<T> partitioner,
            int bufferSize) {
        this(channels, serializer, partitioner, bufferSize, null);
    }

    /**
     * A writer that puts each record's event timestamp ({@code timestamps.get()} at {@link #emit}), as
     * a {@code long}, before the record, for consumers that read the channels as timestamped. With
     * {@code timestamps} {@code null} the channel format is the plain one: records only.
     */
    public RecordWriter(List<LocalChannel> channels, TypeSerializer<T> serializer, Partitioner<T> partitioner,
            int bufferSize, RecordTimestamp timestamps) {
        this(channels, serializer, partitioner, bufferSize, timestamps, Duration.ZERO, System::nanoTime);
    }

    /**
     * A writer whose buffers are handed over smaller than {@code bufferSize} while its consumers
     * backpressure it, aiming at {@code inFlightTarget} of records in its channels ({@link
     * BufferDebloater}; {@link Duration#ZERO}: always {@code bufferSize}).
     *
     * @param nanoClock the clock the sizing periods are measured on; {@code System::nanoTime} outside tests
     */
    public RecordWriter(List<LocalChannel> channels, TypeSerializer<T> serializer, Partitioner<T> partitioner,
            int bufferSize, RecordTimestamp timestamps, Duration inFlightTarget, LongSupplier nanoClock) {
        Objects.requireNonNull(channels, "channels");
        Objects.requireNonNull(inFlightTarget, "inFlightTarget");
        Objects.requireNonNull(nanoClock, "nanoClock");
        this.timestamps = timestamps;
        this.serializer = Objects.requireNonNull(serializer, "serializer");
        this.partitioner = Objects.requireNonNull(partitioner, "partitioner");
        if (channels.isEmpty()) {
            throw new IllegalArgumentException("A record writer needs at least one channel");
        }
        if (bufferSize < 16) {
            throw new IllegalArgumentException("The buffer size must be at least 16 bytes, not " + bufferSize);
        }
        if (partitioner.kind() == Partitioner.Kind.FORWARD && channels.size() != 1) {
            throw new IllegalArgumentException("A FORWARD writer has exactly one channel (to the consumer subtask with"
                    + " its own index), not " + channels.size());
        }
        this.channels = channels.toArray(new LocalChannel[0]);
        this.bufferSize = bufferSize;
        int arrayLength = bufferSize + Math.max(64, bufferSize >> 3);
        int inFlight = 0;
        for (LocalChannel channel : this.channels) {
            inFlight += Objects.requireNonNull(channel, "channel").capacity() + 1;
        }
        this.pool = new BufferPool(arrayLength, inFlight);
        this.debloater = new BufferDebloater(bufferSize, inFlightTarget.toNanos(), inFlight - this.channels.length,
                nanoClock, this::blockedNanos, this::bytesTaken);
        this.handOverSize = bufferSize;
        this.outputs = new DataOutputBuffer[this.channels.length];
        for (int i = 0; i < outputs.length; i++) {
            outputs[i] = new DataOutputBuffer(pool.take());
        }
        switch (partitioner.kind()) {
            case FORWARD -> this.mode = FORWARD;
            case REBALANCE -> this.mode = REBALANCE;
            default -> this.mode = HASH;
        }
        this.keySelector = partitioner.keySelector();
        this.maxParallelism = partitioner.maxParallelism();
        this.keyGroupToChannel = mode == HASH ? partitioner.keyGroupToChannel(this.channels.length) : null;
    }

    /**
     * Serializes {@code record} into the buffer of the channel the partitioner picks, handing the
     * buffer over if it is full.
     *
     * @throws Exception what the key selector throws, unchanged
     * @throws InterruptedException if interrupted while waiting for a full channel
     * @throws ChannelReleasedException if the channel was released
     */
    public void emit(T record) throws Exception {
        if (unusable != null) {
            throw new IllegalStateException("Cannot emit: " + unusable);
        }
        int target;
        if (mode == HASH) {
            target = keyGroupToChannel[KeyGroups.keyGroupFor(keySelector.getKey(record), maxParallelism)];
        } else if (mode == REBALANCE) {
            target = nextRebalanceChannel;
            nextRebalanceChannel = target + 1 < channels.length ? target + 1 : 0;
        } else {
            target = 0;
        }
        DataOutputBuffer out = outputs[target];
        try {
            if (timestamps != null) {
                out.writeLong(timestamps.get());
            }
            serializer.serialize(record, out);
        } catch (RuntimeException | Error e) {
            // Part of the record may be in the buffer; sending it would corrupt the channel.
            unusable = "serializer " + serializer.typeName() + " failed on an earlier record, leaving a partial record"
                    + " in the buffer of channel " + channels[target].name() + " (" + e + ")";
            throw e;
        }
        records++;
        if (out.position() >= handOverSize) {
            send(target);
        }
    }

    /** Hands every non-empty buffer to its channel, so that consumers see all records emitted so far. */
    public void flushAll() throws InterruptedException {
        checkUsable();
        for (int i = 0; i < outputs.length; i++) {
            if (outputs[i].position() > 0) {
                send(i);
            }
        }
    }

    /** Flushes all buffers, then sends {@code event} on every channel, behind the records before it. */
    public void broadcastEvent(NetworkEvent event) throws InterruptedException {
        Objects.requireNonNull(event, "event");
        flushAll();
        Buffer buffer = Buffer.event(event);
        for (LocalChannel channel : channels) {
            channel.send(buffer);
        }
    }

    /**
     * Ends this producer's output: flushes, sends {@link EndOfPartition} on every channel and makes
     * further calls fail. Call it when the producer finished normally; on failure, releasing the
     * channels (through the shuffle service) is what ends them. Does nothing if the writer is
     * already closed, or unusable after a serializer failure.
     */
    public void close() throws InterruptedException {
        if (unusable != null) {
            return;
        }
        broadcastEvent(EndOfPartition.INSTANCE);
        unusable = "the record writer was closed";
    }

    /** Records emitted so far; read racily (see the class comment). */
    public long recordsWritten() {
        return records;
    }

    /** Data buffers handed to channels so far; read racily (see the class comment). */
    public long buffersSent() {
        return buffers;
    }

    /**
     * Total time this writer's thread was blocked on full channels so far (see
     * {@link LocalChannel#blockedNanos()}); the thread blocks on one channel at a time, so this never
     * exceeds the wall time. Any thread; may be slightly stale.
     */
    public long blockedNanos() {
        long sum = 0;
        for (LocalChannel channel : channels) {
            sum += channel.blockedNanos();
        }
        return sum;
    }

    /**
     * The size at which this writer hands buffers over now: the buffer size, or less while its
     * consumers backpressure it (see {@link BufferDebloater}). Any thread; may be slightly stale.
     */
    public int handOverSize() {
        return debloater.size();
    }

    /** Bytes the consumers took from this writer's channels so far ({@link LocalChannel#bytesTaken()}). Any thread. */
    long bytesTaken() {
        long sum = 0;
        for (LocalChannel channel : channels) {
            sum += channel.bytesTaken();
        }
        return sum;
    }

    public int numberOfChannels() {
        return channels.length;
    }

    public Partitioner<T> partitioner() {
        return partitioner;
    }

    private void send(int target) throws InterruptedException {
        DataOutputBuffer out = outputs[target];
        int length = out.position();
        byte[] filled = out.swap(pool.take());
        channels[target].send(Buffer.data(filled, length, pool));
        buffers++;
        handOverSize = debloater.afterBufferSent();
    }

    private void checkUsable() {
        if (unusable != null) {
            throw new IllegalStateException("Cannot write: " + unusable);
        }
    }
}
