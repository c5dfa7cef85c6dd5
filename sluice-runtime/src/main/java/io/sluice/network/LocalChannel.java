package io.sluice.network;

import java.util.Objects;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A bounded queue of {@link Buffer}s from one producer subtask to one consumer subtask in the same
 * JVM. Its capacity in buffers is the producer's credit: when the consumer falls behind, {@link
 * #send} blocks, and the backpressure travels up the pipeline. Only whole buffers and events pass
 * through, so a remote channel can later take this one's place without changing either side.
 *
 * <p>Threading: one producer thread calls {@link #send} (or, a network event loop, {@link #offer});
 * one consumer thread (through its {@link InputGate}, or a network event loop) calls {@link #poll};
 * any thread may call {@link #release}, {@link #queuedBuffers} and {@link #maxQueuedBuffers}. The lock is taken once per buffer, never per record.
 */
public final class LocalChannel {
    private final String name;
    private final Buffer[] ring;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition notFull = lock.newCondition();
    /** Told when the reader frees a slot and when the channel is released; {@link Observer#NONE} for plain channels. */
    private final Observer observer;

    // Guarded by lock.
    private int head;
    private int size;
    private int maxQueued;
    /** Bytes of the data buffers the reader took so far: what the consumer drained. */
    private long bytesTaken;
    private Throwable releaseCause;
    private boolean released;
    private BufferAvailabilityListener listener;
    private int listenerIndex;
    /** Time the producer spent waiting on a full channel, in finished waits; written under lock, read by metrics. */
    private volatile long blockedNanos;
    /** When the producer's current wait on a full channel began, or 0 when it is not waiting. */
    private volatile long blockedSinceNanos;

    /**
     * Told by a channel about its slots and its end, for a network endpoint that feeds or drains it
     * (returning a credit per freed slot, telling the remote side about a release). Called without
     * the channel's lock held; must not block.
     */
    public interface Observer {
        Observer NONE = new Observer() {
            @Override
            public void onSlotFreed() {
            }

            @Override
            public void onReleased(Throwable cause) {
            }
        };

        /** The reader took a buffer ({@link #poll}); called on the reader's thread. */
        void onSlotFreed();

        /** The channel was released (once); called on the releasing thread. */
        void onReleased(Throwable cause);
    }

    public LocalChannel(String name, int capacityInBuffers) {
        this(name, capacityInBuffers, Observer.NONE);
    }

    /** A channel whose slot and release events go to {@code observer} as well. */
    public LocalChannel(String name, int capacityInBuffers, Observer observer) {
        this.name = Objects.requireNonNull(name, "name");
        this.observer = Objects.requireNonNull(observer, "observer");
        if (capacityInBuffers < 1) {
            throw new IllegalArgumentException("Channel " + name + " needs a capacity of at least one buffer, not "
                    + capacityInBuffers);
        }
        this.ring = new Buffer[capacityInBuffers];
    }

    public String name() {
        return name;
    }

    public int capacity() {
        return ring.length;
    }

    /**
     * Queues {@code buffer} for the consumer, waiting while the channel is full.
     *
     * @throws InterruptedException if the producer thread is interrupted while waiting
     * @throws ChannelReleasedException if the channel is or gets released
     */
    public void send(Buffer buffer) throws InterruptedException {
        Objects.requireNonNull(buffer, "buffer");
        BufferAvailabilityListener toNotify;
        int index;
        lock.lockInterruptibly();
        try {
            if (size == ring.length && !released) {
                awaitNotFull();
            }
            if (released) {
                throw releasedException();
            }
            int tail = head + size;
            ring[tail < ring.length ? tail : tail - ring.length] = buffer;
            size++;
            if (size > maxQueued) {
                maxQueued = size;
            }
            toNotify = listener;
            index = listenerIndex;
        } finally {
            lock.unlock();
        }
        if (toNotify != null) {
            toNotify.notifyBufferAvailable(index);
        }
    }

    /** Waits while the channel is full, adding the time waited to {@link #blockedNanos()}. Under lock. */
    private void awaitNotFull() throws InterruptedException {
        long start = System.nanoTime();
        blockedSinceNanos = start == 0 ? 1 : start;
        try {
            while (size == ring.length && !released) {
                notFull.await();
            }
        } finally {
            blockedSinceNanos = 0;
            blockedNanos += System.nanoTime() - start;
        }
    }

    /**
     * Total time the producer was blocked in {@link #send} on a full channel, including a wait in
     * progress: the backpressure this channel exerted. Any thread; may be slightly stale.
     */
    public long blockedNanos() {
        long since = blockedSinceNanos;
        long done = blockedNanos;
        return since == 0 ? done : done + Math.max(0, System.nanoTime() - since);
    }

    /**
     * Takes the oldest buffer, or returns {@code null} if there is none. Never blocks (the gate
     * does the waiting).
     *
     * @throws ChannelReleasedException if the channel was released
     */
    public Buffer poll() {
        Buffer buffer;
        lock.lock();
        try {
            if (released) {
                throw releasedException();
            }
            if (size == 0) {
                return null;
            }
            buffer = ring[head];
            ring[head] = null;
            bytesTaken += buffer.length();
            head = head + 1 < ring.length ? head + 1 : 0;
            if (size-- == ring.length) {
                notFull.signal();
            }
        } finally {
            lock.unlock();
        }
        observer.onSlotFreed();
        return buffer;
    }

    /**
     * Queues {@code buffer} if there is a free slot, never waiting: for a thread that must not
     * block (a network event loop, which only writes what the channel's credits allow).
     *
     * @return {@code false} if the channel is full
     * @throws ChannelReleasedException if the channel was released
     */
    public boolean offer(Buffer buffer) {
        Objects.requireNonNull(buffer, "buffer");
        BufferAvailabilityListener toNotify;
        int index;
        lock.lock();
        try {
            if (released) {
                throw releasedException();
            }
            if (size == ring.length) {
                return false;
            }
            int tail = head + size;
            ring[tail < ring.length ? tail : tail - ring.length] = buffer;
            size++;
            if (size > maxQueued) {
                maxQueued = size;
            }
            toNotify = listener;
            index = listenerIndex;
        } finally {
            lock.unlock();
        }
        if (toNotify != null) {
            toNotify.notifyBufferAvailable(index);
        }
        return true;
    }

    /** Why the channel was released, or {@code null} while it is not. */
    public Throwable releaseCause() {
        lock.lock();
        try {
            return releaseCause;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Drops every queued buffer and fails the producer's and consumer's current and future calls
     * with a {@link ChannelReleasedException} caused by {@code cause}. Idempotent: the first cause
     * wins.
     */
    public void release(Throwable cause) {
        BufferAvailabilityListener toNotify;
        int index;
        lock.lock();
        try {
            if (released) {
                return;
            }
            released = true;
            releaseCause = cause;
            for (int i = 0; i < ring.length; i++) {
                ring[i] = null;
            }
            size = 0;
            notFull.signalAll();
            toNotify = listener;
            index = listenerIndex;
        } finally {
            lock.unlock();
        }
        if (toNotify != null) {
            toNotify.notifyBufferAvailable(index);
        }
        observer.onReleased(cause);
    }

    public boolean isReleased() {
        lock.lock();
        try {
            return released;
        } finally {
            lock.unlock();
        }
    }

    /** Buffers (data and events) waiting for the consumer now. */
    public int queuedBuffers() {
        lock.lock();
        try {
            return size;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Bytes of the data buffers {@link #poll} handed to the reader so far (events count 0): the rate
     * at which the consumer drains the channel. Any thread.
     */
    public long bytesTaken() {
        lock.lock();
        try {
            return bytesTaken;
        } finally {
            lock.unlock();
        }
    }

    /** The most buffers ever queued at once: never more than {@link #capacity()}. */
    public int maxQueuedBuffers() {
        lock.lock();
        try {
            return maxQueued;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Connects the reading side (an input gate, or the network sender of a channel whose consumer is
     * remote); it is told about buffers already queued, and every later one, and about the release.
     */
    public void attach(BufferAvailabilityListener newListener, int channelIndex) {
        boolean notifyNow;
        lock.lock();
        try {
            if (listener != null) {
                throw new IllegalStateException("Channel " + name + " is already read by another input gate");
            }
            listener = newListener;
            listenerIndex = channelIndex;
            notifyNow = size > 0 || released;
        } finally {
            lock.unlock();
        }
        if (notifyNow) {
            newListener.notifyBufferAvailable(channelIndex);
        }
    }

    private ChannelReleasedException releasedException() {
        return new ChannelReleasedException("Channel " + name, releaseCause);
    }

    @Override
    public String toString() {
        return "LocalChannel[" + name + "]";
    }
}
