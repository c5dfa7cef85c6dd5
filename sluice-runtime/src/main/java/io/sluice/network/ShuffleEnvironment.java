package io.sluice.network;

import io.sluice.graph.JobId;
import java.time.Duration;

/**
 * Where a task executor's tasks get their data channels. Both ends of a channel between two tasks of
 * the same task executor use {@link #channel}; a channel whose other end runs in another task
 * executor (its data address differs) is the producer's {@link #remoteOutputChannel} there and the
 * consumer's {@link #remoteInputChannel} here. Either way a task sees a {@link LocalChannel}, so
 * record writers, input gates and barrier alignment do not know whether the peer is remote.
 *
 * <p>Implementations: {@link LocalShuffleService} (everything in memory, shared by every task
 * executor of a JVM; no data address) and {@code io.sluice.network.netty.NettyShuffleEnvironment}
 * (one per task executor, with a TCP data server).
 *
 * <p>Threading: every method is thread-safe and non-blocking (task threads and main threads call it).
 */
public interface ShuffleEnvironment {

    int buffersPerChannel();

    /** The size at which record writers hand a filled buffer to its channel. */
    int bufferSize();

    /**
     * The time's worth of records a backpressured edge aims to hold in its channels, through smaller
     * buffers ({@link BufferDebloater}); {@link Duration#ZERO}: buffers are always {@link #bufferSize()}.
     */
    Duration inFlightTarget();

    /** {@code host:port} of this environment's data server, or {@code null} when its channels are all in memory. */
    default String dataAddress() {
        return null;
    }

    /**
     * The in-memory channel named {@code key}, created on first request; producer and consumer get
     * the same instance.
     *
     * @throws ChannelReleasedException if the key's job attempt was already released
     */
    LocalChannel channel(ChannelKey key);

    /**
     * The producer's end of channel {@code key}, whose consumer runs in another task executor: the
     * consumer's environment asks this one's data server for it and drains it as its credits allow.
     *
     * @throws ChannelReleasedException if the key's job attempt was already released
     * @throws UnsupportedOperationException if this environment exchanges data only in memory
     */
    default LocalChannel remoteOutputChannel(ChannelKey key) {
        throw new UnsupportedOperationException("Channel " + key + " has its consumer in another task executor, but"
                + " this task executor exchanges data only in memory (it has no data server)");
    }

    /**
     * The consumer's end of channel {@code key}, whose producer runs in the task executor with data
     * server {@code producerAddress}; filled from the network.
     *
     * @throws ChannelReleasedException if the key's job attempt was already released
     * @throws UnsupportedOperationException if this environment exchanges data only in memory
     */
    default LocalChannel remoteInputChannel(ChannelKey key, String producerAddress) {
        throw new UnsupportedOperationException("Channel " + key + " has its producer at " + producerAddress
                + ", but this task executor exchanges data only in memory (it has no data client)");
    }

    /**
     * Releases every channel of attempt {@code attempt} of {@code jobId} (local and remote ends),
     * failing their users with a {@link ChannelReleasedException} caused by {@code cause}; later
     * requests for channels of this or an earlier attempt fail.
     */
    void releaseAttempt(JobId jobId, int attempt, Throwable cause);

    /** Releases every channel of every attempt of {@code jobId}. */
    void releaseJob(JobId jobId);

    /**
     * The task executor that owns this environment lost its job manager and every one of its tasks
     * has ended: releases every channel of every job (telling remote peers, with {@code cause}) and
     * forgets which deployment rounds were released. The next job manager may run in another process,
     * whose job masters number their rounds from 1 again; without this, its rounds would meet the
     * released channels and release marks of the old leader's rounds with the same numbers and fail at
     * once, each a job failure that no task caused.
     *
     * <p>The default does nothing: an environment shared by several task executors (the in-memory
     * {@link LocalShuffleService} of a {@code LocalCluster}) keeps its channels, since the other task
     * executors' tasks use them, and its job masters number their rounds from one JVM-wide counter.
     */
    default void forgetAllDeployments(Throwable cause) {
    }
}
