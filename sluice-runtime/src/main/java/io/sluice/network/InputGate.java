package io.sluice.network;

import java.util.List;
import java.util.Objects;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The consumer side of a subtask's input: N {@link LocalChannel}s (from one edge, or several for a
 * union), numbered 0..N-1 in the order given. It hands out their buffers one at a time, round robin
 * over the channels that have some, skipping channels blocked for checkpoint alignment.
 *
 * <p>Threading: one consumer (task) thread calls {@link #pollNext}, {@link #tryPollNext}, {@link
 * #blockChannel} and {@link #unblockAllChannels}. Producer threads call in (through the channels)
 * once per buffer to say it arrived; {@link #release} may be called by any thread. A single lock
 * and condition guard the gate; the gate lock is taken before a channel's lock, never after.
 */
public final class InputGate {
    private final String name;
    private final LocalChannel[] channels;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition available = lock.newCondition();
    /** What the channels call (kept off the public API). */
    private final BufferAvailabilityListener listener = this::onBufferAvailable;

    // Guarded by lock. The ring holds the channels that may have a buffer, each at most once.
    private final int[] ring;
    private int ringHead;
    private int ringSize;
    private final boolean[] inRing;
    private final boolean[] blocked;
    /** Blocked channels that were taken off the ring with buffers still queued. */
    private final boolean[] parked;
    private boolean released;
    private Throwable releaseCause;
    /** A {@link #wakeUp} not yet consumed by a timed poll. */
    private boolean wakeUpPending;

    /** Creates the gate and connects it to {@code channels}; each channel can belong to one gate only. */
    public InputGate(String name, List<LocalChannel> channels) {
        this.name = Objects.requireNonNull(name, "name");
        if (channels.isEmpty()) {
            throw new IllegalArgumentException("Input gate " + name + " needs at least one channel");
        }
        this.channels = channels.toArray(new LocalChannel[0]);
        int n = this.channels.length;
        this.ring = new int[n];
        this.inRing = new boolean[n];
        this.blocked = new boolean[n];
        this.parked = new boolean[n];
        // Last: from here on producers may call notifyBufferAvailable (after the fields above are set).
        for (int i = 0; i < n; i++) {
            Objects.requireNonNull(this.channels[i], "channel").attach(listener, i);
        }
    }

    public String name() {
        return name;
    }

    public int numberOfChannels() {
        return channels.length;
    }

    /**
     * The next buffer of an unblocked channel, waiting until there is one.
     *
     * @throws InterruptedException if the consumer thread is interrupted while waiting
     * @throws ChannelReleasedException if the gate or the channel it would read from was released
     */
    public BufferOrEvent pollNext() throws InterruptedException {
        lock.lockInterruptibly();
        try {
            while (true) {
                BufferOrEvent next = pollLocked();
                if (next != null) {
                    return next;
                }
                available.await();
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * Like {@link #pollNext()}, but waits at most {@code timeoutNanos} and then returns {@code null}; also
     * {@code null} at once after a {@link #wakeUp} (one wake-up ends one wait, even if it came before it).
     *
     * @throws InterruptedException if the consumer thread is interrupted while waiting
     */
    public BufferOrEvent pollNext(long timeoutNanos) throws InterruptedException {
        lock.lockInterruptibly();
        try {
            long remaining = timeoutNanos;
            while (true) {
                BufferOrEvent next = pollLocked();
                if (next != null) {
                    return next;
                }
                if (wakeUpPending) {
                    wakeUpPending = false;
                    return null;
                }
                if (remaining <= 0) {
                    return null;
                }
                remaining = available.awaitNanos(remaining);
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * Ends the consumer's current or next timed {@link #pollNext(long)} without a buffer: the task has other
     * work (mail from other threads). Any thread; never blocks for longer than the gate's lock is held.
     */
    public void wakeUp() {
        lock.lock();
        try {
            wakeUpPending = true;
            available.signal();
        } finally {
            lock.unlock();
        }
    }

    /** Like {@link #pollNext()}, but returns {@code null} instead of waiting. */
    public BufferOrEvent tryPollNext() {
        lock.lock();
        try {
            return pollLocked();
        } finally {
            lock.unlock();
        }
    }

    /** Holds back the buffers of channel {@code channelIndex} until {@link #unblockAllChannels()}. */
    public void blockChannel(int channelIndex) {
        Objects.checkIndex(channelIndex, channels.length);
        lock.lock();
        try {
            blocked[channelIndex] = true;
        } finally {
            lock.unlock();
        }
    }

    public void unblockAllChannels() {
        lock.lock();
        try {
            for (int i = 0; i < channels.length; i++) {
                blocked[i] = false;
                if (parked[i]) {
                    parked[i] = false;
                    enqueueLocked(i);
                }
            }
        } finally {
            lock.unlock();
        }
    }

    /** Wakes the consumer, and fails its current and later polls, with a {@link ChannelReleasedException}. */
    public void release(Throwable cause) {
        lock.lock();
        try {
            if (!released) {
                released = true;
                releaseCause = cause;
                available.signalAll();
            }
        } finally {
            lock.unlock();
        }
    }

    private void onBufferAvailable(int channelIndex) {
        lock.lock();
        try {
            enqueueLocked(channelIndex);
            available.signal();
        } finally {
            lock.unlock();
        }
    }

    private BufferOrEvent pollLocked() {
        if (released) {
            throw new ChannelReleasedException("Input gate " + name, releaseCause);
        }
        for (int n = ringSize; n > 0; n--) {
            int i = ring[ringHead];
            ringHead = ringHead + 1 < ring.length ? ringHead + 1 : 0;
            ringSize--;
            inRing[i] = false;
            LocalChannel channel = channels[i];
            if (blocked[i] && !channel.isReleased()) {
                parked[i] = true;
                continue;
            }
            Buffer buffer = channel.poll();
            if (buffer == null) {
                continue;
            }
            if (channel.queuedBuffers() > 0) {
                enqueueLocked(i); // to the back of the ring: round robin
            }
            return new BufferOrEvent(buffer, i);
        }
        return null;
    }

    private void enqueueLocked(int channelIndex) {
        if (!inRing[channelIndex]) {
            inRing[channelIndex] = true;
            int tail = ringHead + ringSize;
            ring[tail < ring.length ? tail : tail - ring.length] = channelIndex;
            ringSize++;
        }
    }

    @Override
    public String toString() {
        return "InputGate[" + name + ", " + channels.length + " channels]";
    }
}
