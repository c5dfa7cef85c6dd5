package io.sluice.network;

import java.util.concurrent.ArrayBlockingQueue;

/**
 * The arrays of one record writer's buffers. The writer's thread {@link #take}s an array to fill;
 * the consumer's thread {@link #recycle}s it after reading. Arrays of any other length (grown by an
 * oversized record) are left to the garbage collector. Both calls are thread-safe and happen once
 * per buffer, never per record.
 */
final class BufferPool implements BufferRecycler {
    private final int arrayLength;
    private final ArrayBlockingQueue<byte[]> free;

    BufferPool(int arrayLength, int maxPooled) {
        this.arrayLength = arrayLength;
        this.free = new ArrayBlockingQueue<>(Math.max(1, maxPooled));
    }

    byte[] take() {
        byte[] array = free.poll();
        return array != null ? array : new byte[arrayLength];
    }

    @Override
    public void recycle(byte[] array) {
        if (array.length == arrayLength) {
            free.offer(array);
        }
    }

    int arrayLength() {
        return arrayLength;
    }
}
