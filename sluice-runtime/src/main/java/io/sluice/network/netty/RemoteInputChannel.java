package io.sluice.network.netty;

import io.sluice.network.BufferRecycler;
import io.sluice.network.ChannelKey;
import io.sluice.network.LocalChannel;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The consumer's end of a channel whose producer runs in another task executor: a
 * {@link LocalChannel} of {@code buffers-per-channel} slots that its {@link ConsumerConnection}
 * fills from the network, read by the task's input gate like any channel. Every slot the task frees
 * goes back to the producer as a credit, so the producer never sends more than fits: the event loop
 * never waits for this channel, and a slow task stalls only its own channels.
 *
 * <p>Threading: {@link #onSlotFreed} runs on the consumer task's thread, {@link #onReleased} on the
 * releasing thread, {@link #recycle} on the task's thread; {@link #takeArray} and the fields marked
 * so run on the connection's event loop.
 */
final class RemoteInputChannel implements LocalChannel.Observer, BufferRecycler {
    private final ChannelKey key;
    private final int id;
    private final ConsumerConnection connection;
    private final LocalChannel channel;
    private final int arrayLength;
    private final ArrayBlockingQueue<byte[]> freeArrays;
    private final AtomicInteger pendingCredits = new AtomicInteger();
    /** Set once the remote side cannot send any more (end of partition, its release, connection lost). */
    private final AtomicBoolean remoteDone = new AtomicBoolean();
    private final Runnable onRelease;

    /** Event loop only: the request went out. */
    boolean requested;

    RemoteInputChannel(ChannelKey key, int id, ConsumerConnection connection, int capacity, int arrayLength,
                       Runnable onRelease) {
        this.key = key;
        this.id = id;
        this.connection = connection;
        this.arrayLength = arrayLength;
        this.freeArrays = new ArrayBlockingQueue<>(capacity + 1);
        this.onRelease = onRelease;
        this.channel = new LocalChannel(key + " (from " + connection.address() + ")", capacity, this);
    }

    ChannelKey key() {
        return key;
    }

    int id() {
        return id;
    }

    LocalChannel channel() {
        return channel;
    }

    int capacity() {
        return channel.capacity();
    }

    /** An array for a received buffer of {@code length} bytes, reused when possible. Event loop. */
    byte[] takeArray(int length) {
        byte[] array = freeArrays.poll();
        if (array == null || array.length < length) {
            array = new byte[Math.max(length, arrayLength)];
        }
        return array;
    }

    @Override
    public void recycle(byte[] array) {
        if (array.length == arrayLength) {
            freeArrays.offer(array);
        }
    }

    /** The task took a buffer: one more credit for the producer, sent soon (several freed slots go in one frame). */
    @Override
    public void onSlotFreed() {
        if (!remoteDone.get() && pendingCredits.getAndIncrement() == 0) {
            connection.execute(this::sendCredits);
        }
    }

    /** Event loop. */
    private void sendCredits() {
        int n = pendingCredits.getAndSet(0);
        if (n > 0 && !remoteDone.get()) {
            connection.sendCredits(this, n);
        }
    }

    /** Released here (task cancelled or failed, attempt released): tell the producer, unless it is done anyway. */
    @Override
    public void onReleased(Throwable cause) {
        onRelease.run();
        if (remoteDone.compareAndSet(false, true)) {
            connection.cancel(this, cause);
        }
    }

    /** The producer sent its end of partition: nothing more comes. Event loop. */
    void endOfPartitionReceived() {
        remoteDone.set(true);
        onRelease.run();
    }

    /** The remote side is gone: releases this end with {@code cause}, without telling the remote side. */
    void releaseFromRemote(RuntimeException cause) {
        remoteDone.set(true);
        channel.release(cause);
    }
}
