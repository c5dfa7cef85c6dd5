package io.sluice.network;

import io.sluice.core.serialization.DataInputBuffer;
import io.sluice.core.serialization.TypeSerializer;
import io.sluice.operators.RecordTimestamp;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.function.LongSupplier;

/**
 * Drives an {@link InputGate} for a task: deserializes the records of each buffer and hands them
 * to a {@link RecordHandler}, and aligns checkpoint barriers across the gate's channels.
 *
 * <p>Alignment: the first barrier of a checkpoint blocks its channel; the records of blocked
 * channels stay queued (and so backpressure their producers) until every channel that has not
 * ended delivered the barrier. Then the channels are unblocked and {@link
 * BarrierHandler#onAligned} is called once. A barrier of a newer checkpoint during alignment aborts
 * the older one ({@link BarrierHandler#onAborted}) and starts aligning the newer one; late barriers
 * of the aborted or of earlier checkpoints are ignored. An {@link EndOfPartition} ends its channel,
 * which no longer counts for alignment.
 *
 * <p>Watermarks and idle statuses are combined over the channels by a {@link WatermarkValve} and
 * reported to a {@link WatermarkHandler}. They are events in the channels, so a channel blocked for
 * alignment holds its watermarks behind its records too. Channels marked timestamped carry a
 * {@code long} event timestamp before each record, read into the task's {@link RecordTimestamp};
 * other channels carry records only and cost nothing per record.
 *
 * <p>Before it would block waiting for input, it calls the task's {@link IdleHook}.
 *
 * <p>Threading: confined to the task thread, which calls {@link #processNext} and runs every
 * callback. {@link #recordsRead()} reads a plain field racily, for metrics.
 */
public final class StreamInputProcessor<T> {
    private final InputGate gate;
    private final TypeSerializer<? extends T>[] serializers;
    private final IdleHook idleHook;
    private final DataInputBuffer in = new DataInputBuffer();

    private final boolean[] finished;
    private int finishedChannels;
    private final boolean[] barrierReceived;
    private int barriersReceived;
    /** The barrier being aligned, or {@code null} when not aligning. */
    private CheckpointBarrier aligning;
    private long latestCheckpointId = -1;
    private long records;
    /** Per channel: whether each record is preceded by its event timestamp. */
    private final boolean[] timestamped;
    private final RecordTimestamp timestamp;
    private final WatermarkValve valve;
    /**
     * How long to wait for input before returning {@link InputStatus#NOTHING_AVAILABLE}, asked each time after
     * the idle hook: 0 or less returns at once, {@link Long#MAX_VALUE} waits as long as it takes.
     */
    private final LongSupplier pollTimeoutNanos;

    /** @param serializers the serializer of each gate channel's records, by channel index */
    public StreamInputProcessor(InputGate gate, List<? extends TypeSerializer<? extends T>> serializers,
            IdleHook idleHook) {
        this(gate, serializers, idleHook, new boolean[gate.numberOfChannels()], new RecordTimestamp(), UNTIL_INPUT);
    }

    /** A poll timeout: wait until input arrives. */
    public static final LongSupplier UNTIL_INPUT = () -> Long.MAX_VALUE;

    /**
     * @param timestampedChannels per channel, whether its records are each preceded by an event timestamp
     *                            (read into {@code timestamp} before the record is handed on)
     * @param pollTimeoutNanos    how long {@link #processNext} waits for input before it returns
     *                            {@link InputStatus#NOTHING_AVAILABLE}, asked after the idle hook each time it
     *                            would wait: 0 or less not at all, {@link #UNTIL_INPUT} until input arrives; a
     *                            {@link InputGate#wakeUp} ends a timed wait early
     */
    public StreamInputProcessor(InputGate gate, List<? extends TypeSerializer<? extends T>> serializers,
            IdleHook idleHook, boolean[] timestampedChannels, RecordTimestamp timestamp, LongSupplier pollTimeoutNanos) {
        if (timestampedChannels.length != gate.numberOfChannels()) {
            throw new IllegalArgumentException("Input gate " + gate.name() + " has " + gate.numberOfChannels()
                    + " channels but " + timestampedChannels.length + " timestamp flags were given");
        }
        this.timestamped = timestampedChannels.clone();
        this.timestamp = Objects.requireNonNull(timestamp, "timestamp");
        this.valve = new WatermarkValve(timestampedChannels.length);
        this.pollTimeoutNanos = Objects.requireNonNull(pollTimeoutNanos, "pollTimeoutNanos");
        this.gate = Objects.requireNonNull(gate, "gate");
        this.idleHook = Objects.requireNonNull(idleHook, "idleHook");
        if (serializers.size() != gate.numberOfChannels()) {
            throw new IllegalArgumentException("Input gate " + gate.name() + " has " + gate.numberOfChannels()
                    + " channels but " + serializers.size() + " serializers were given; it needs one per channel");
        }
        @SuppressWarnings("unchecked")
        TypeSerializer<? extends T>[] array = serializers.toArray(new TypeSerializer[0]);
        for (TypeSerializer<? extends T> s : array) {
            Objects.requireNonNull(s, "serializer");
        }
        this.serializers = array;
        this.finished = new boolean[array.length];
        this.barrierReceived = new boolean[array.length];
    }

    /** A processor whose channels all carry records of {@code serializer}'s type. */
    public StreamInputProcessor(InputGate gate, TypeSerializer<? extends T> serializer, IdleHook idleHook) {
        this(gate, Collections.nCopies(gate.numberOfChannels(), serializer), idleHook);
    }

    /**
     * Processes the next buffer or event, waiting for one if none is ready (after calling the idle
     * hook). Exceptions from the handlers, the idle hook and the serializers propagate unchanged.
     *
     * @throws InterruptedException if the task thread is interrupted while waiting
     * @throws ChannelReleasedException if the gate or a channel was released
     */
    public InputStatus processNext(RecordHandler<? super T> handler, BarrierHandler barriers) throws Exception {
        return processNext(handler, barriers, WatermarkHandler.IGNORE);
    }

    /**
     * Like {@link #processNext(RecordHandler, BarrierHandler)}, and tells {@code watermarks} when the
     * input's watermark (the minimum over its non-idle channels) advances or its idleness changes.
     */
    public InputStatus processNext(RecordHandler<? super T> handler, BarrierHandler barriers,
            WatermarkHandler watermarks) throws Exception {
        if (finishedChannels == finished.length) {
            return InputStatus.END_OF_INPUT;
        }
        BufferOrEvent next = gate.tryPollNext();
        if (next == null) {
            idleHook.onIdle();
            long timeout = pollTimeoutNanos.getAsLong();
            next = timeout == Long.MAX_VALUE ? gate.pollNext() : gate.pollNext(timeout);
            if (next == null) {
                return InputStatus.NOTHING_AVAILABLE;
            }
        }
        Buffer buffer = next.buffer();
        int channel = next.channelIndex();
        if (buffer.isEvent()) {
            return onEvent(buffer.event(), channel, barriers, watermarks);
        }
        if (finished[channel]) {
            throw new IllegalStateException("Channel " + channel + " of " + gate.name()
                    + " delivered data after its end of partition");
        }
        TypeSerializer<? extends T> serializer = serializers[channel];
        DataInputBuffer input = in;
        long count = 0;
        try {
            input.reset(buffer.data(), 0, buffer.length());
            if (timestamped[channel]) {
                RecordTimestamp ts = timestamp;
                while (input.hasRemaining()) {
                    ts.set(input.readLong());
                    handler.accept(serializer.deserialize(input));
                    count++;
                }
            } else {
                while (input.hasRemaining()) {
                    handler.accept(serializer.deserialize(input));
                    count++;
                }
            }
        } finally {
            records += count;
            buffer.recycle();
        }
        return InputStatus.MORE_AVAILABLE;
    }

    /** Records handed to the handler so far; read racily (see the class comment). */
    public long recordsRead() {
        return records;
    }

    /** The id of the checkpoint being aligned, or -1 when none is. */
    public long aligningCheckpointId() {
        return aligning == null ? -1 : aligning.checkpointId();
    }

    /** The input's watermark: the minimum over its non-idle channels, as last handed to the watermark handler. */
    public long currentWatermark() {
        return valve.currentWatermark();
    }

    private InputStatus onEvent(NetworkEvent event, int channel, BarrierHandler barriers, WatermarkHandler watermarks)
            throws Exception {
        if (finished[channel]) {
            throw new IllegalStateException("Channel " + channel + " of " + gate.name() + " delivered " + event
                    + " after its end of partition");
        }
        if (event instanceof CheckpointBarrier barrier) {
            onBarrier(barrier, channel, barriers);
            return InputStatus.MORE_AVAILABLE;
        }
        if (event instanceof Watermark watermark) {
            valve.onWatermark(channel, watermark.timestamp(), watermarks);
            return InputStatus.MORE_AVAILABLE;
        }
        if (event instanceof IdleStatus status) {
            valve.onIdleStatus(channel, status == IdleStatus.IDLE, watermarks);
            return InputStatus.MORE_AVAILABLE;
        }
        finished[channel] = true;
        finishedChannels++;
        valve.onEnd(channel, watermarks);
        completeAlignmentIfDone(barriers);
        return finishedChannels == finished.length ? InputStatus.END_OF_INPUT : InputStatus.MORE_AVAILABLE;
    }

    private void onBarrier(CheckpointBarrier barrier, int channel, BarrierHandler barriers) throws Exception {
        long id = barrier.checkpointId();
        if (id < latestCheckpointId || (id == latestCheckpointId && aligning == null)) {
            return; // a late barrier of a checkpoint already aligned or aborted
        }
        if (id > latestCheckpointId) {
            if (aligning != null) {
                long aborted = aligning.checkpointId();
                resetAlignment();
                barriers.onAborted(aborted);
            }
            latestCheckpointId = id;
            aligning = barrier;
        }
        if (barrierReceived[channel]) {
            throw new IllegalStateException("Channel " + channel + " of " + gate.name() + " delivered the barrier of"
                    + " checkpoint " + id + " twice");
        }
        barrierReceived[channel] = true;
        barriersReceived++;
        gate.blockChannel(channel);
        completeAlignmentIfDone(barriers);
    }

    private void completeAlignmentIfDone(BarrierHandler barriers) throws Exception {
        if (aligning != null && barriersReceived == finished.length - finishedChannels) {
            CheckpointBarrier aligned = aligning;
            resetAlignment();
            barriers.onAligned(aligned);
        }
    }

    private void resetAlignment() {
        aligning = null;
        barriersReceived = 0;
        Arrays.fill(barrierReceived, false);
        gate.unblockAllChannels();
    }
}
