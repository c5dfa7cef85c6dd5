package io.sluice.taskexecutor;

import io.sluice.network.ChannelKey;
import io.sluice.network.InputGate;
import io.sluice.network.LocalChannel;
import io.sluice.network.ShuffleEnvironment;
import io.sluice.protocol.TaskDeploymentDescriptor;
import java.util.ArrayList;
import java.util.List;

/**
 * The channels of one task attempt: where each comes from (in memory, or the network end of a
 * channel to another task executor), and their release when the task is cancelled.
 *
 * <p>Threads: the task thread acquires them while {@code DEPLOYING}; the task executor's main
 * thread releases them on cancel ({@link #releaseOnCancel}). Both meet only on the lists below
 * (guarded by {@code this}) and the volatile gate, so a cancel during set-up releases what was
 * acquired so far, and an input gate made after the cancel is released at once.
 */
final class TaskChannels {
    private final TaskDeploymentDescriptor tdd;
    private final ShuffleEnvironment shuffle;
    /** The output channels (producer ends) acquired so far; guarded by {@code this}. */
    private final List<LocalChannel> outputs = new ArrayList<>();
    /** The network ends, inputs and outputs, of channels to and from other task executors; guarded by {@code this}. */
    private final List<LocalChannel> remote = new ArrayList<>();
    private volatile InputGate inputGate;
    /** Why the task was cancelled, or {@code null} while it was not. */
    private volatile Throwable cancelled;

    TaskChannels(TaskDeploymentDescriptor tdd, ShuffleEnvironment shuffle) {
        this.tdd = tdd;
        this.shuffle = shuffle;
    }

    /** The buffer size of the task executor's channels, in bytes. */
    int bufferSize() {
        return shuffle.bufferSize();
    }

    /** The time's worth of records a backpressured output aims to hold in flight ({@link ShuffleEnvironment#inFlightTarget()}). */
    java.time.Duration inFlightTarget() {
        return shuffle.inFlightTarget();
    }

    /**
     * The producer's end of {@code key}: in memory when the consumer subtask runs in this task
     * executor (same data address, or no addresses at all), else the end a remote consumer drains.
     * Task thread.
     */
    LocalChannel output(ChannelKey key) {
        LocalChannel channel;
        if (!tdd.isRemote(key.consumerSubtask())) {
            channel = shuffle.channel(key);
        } else {
            channel = shuffle.remoteOutputChannel(key);
            synchronized (this) {
                remote.add(channel);
            }
        }
        synchronized (this) {
            outputs.add(channel);
        }
        return channel;
    }

    /** The consumer's end of {@code key}: in memory, or filled from the producer's task executor. Task thread. */
    LocalChannel input(ChannelKey key) {
        if (!tdd.isRemote(key.producerSubtask())) {
            return shuffle.channel(key);
        }
        LocalChannel channel = shuffle.remoteInputChannel(key, tdd.dataAddress(key.producerSubtask()));
        synchronized (this) {
            remote.add(channel);
        }
        return channel;
    }

    /** The gate over the task's input channels; released at once if the task was cancelled meanwhile. Task thread. */
    InputGate inputGate(String taskName, List<LocalChannel> channels) {
        InputGate gate = new InputGate(taskName, channels);
        inputGate = gate;
        Throwable cause = cancelled;
        if (cause != null) {
            gate.release(cause);
        }
        return gate;
    }

    /**
     * The task was cancelled: its input gate and output channels are released, so that a task thread
     * blocked on them wakes up and its peers hear of it. Main thread (any thread).
     */
    void releaseOnCancel(Throwable cause) {
        cancelled = cause;
        InputGate gate = inputGate;
        if (gate != null) {
            gate.release(cause);
        }
        List<LocalChannel> acquired;
        synchronized (this) {
            acquired = List.copyOf(outputs);
        }
        for (LocalChannel c : acquired) {
            c.release(cause);
        }
    }

    /** Releases the input gate again when the task thread ends cancelled (a gate made late). Task thread. */
    void releaseInputGate(Throwable cause) {
        InputGate gate = inputGate;
        if (gate != null) {
            gate.release(cause);
        }
    }

    /**
     * Releases the network ends of the task's channels, when it was cancelled: the peers in other
     * task executors hear of it at once instead of when the deployment is released. A finished task
     * keeps them (its end of partition may still be on its way), and so does a failed one (see
     * {@code Task.run}). Task thread.
     */
    void releaseRemote(Throwable cause) {
        List<LocalChannel> ends;
        synchronized (this) {
            ends = List.copyOf(remote);
        }
        for (LocalChannel c : ends) {
            c.release(cause);
        }
    }
}
