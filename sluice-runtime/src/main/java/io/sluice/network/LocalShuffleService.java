package io.sluice.network;

import io.sluice.graph.JobId;
import java.time.Duration;
import java.util.Iterator;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The registry of the in-memory {@link LocalChannel}s of every job running in this JVM (the
 * {@link ShuffleEnvironment} of a {@code LocalCluster}, shared by its task executors; also the
 * in-memory half of a task executor's network environment). A producer and its
 * consumer each ask for their channel by {@link ChannelKey}, in either order, and get the same
 * instance. When an attempt ends, {@link #releaseAttempt} releases its channels, which wakes any
 * task thread blocked on them.
 *
 * <p>Threading: all methods are thread-safe and may be called from task threads and from the task
 * executor's main thread. A released attempt is remembered (one entry per job), so a task that
 * asks for a channel after its attempt was released fails instead of waiting forever on a channel
 * that nobody will ever release.
 */
public final class LocalShuffleService implements ShuffleEnvironment {
    public static final int DEFAULT_BUFFERS_PER_CHANNEL = 4;
    public static final int DEFAULT_BUFFER_SIZE = 32 * 1024;
    /** The default of {@code network.in-flight-target}. */
    public static final Duration DEFAULT_IN_FLIGHT_TARGET = Duration.ofMillis(300);

    private final int buffersPerChannel;
    private final int bufferSize;
    private final Duration inFlightTarget;
    private final ConcurrentHashMap<ChannelKey, LocalChannel> channels = new ConcurrentHashMap<>();
    /** The highest released attempt of each job; Integer.MAX_VALUE once the whole job was released. */
    private final ConcurrentHashMap<JobId, Integer> releasedUpTo = new ConcurrentHashMap<>();

    public LocalShuffleService() {
        this(DEFAULT_BUFFERS_PER_CHANNEL, DEFAULT_BUFFER_SIZE);
    }

    public LocalShuffleService(int buffersPerChannel, int bufferSize) {
        this(buffersPerChannel, bufferSize, DEFAULT_IN_FLIGHT_TARGET);
    }

    /** @param inFlightTarget see {@link #inFlightTarget()}; {@link Duration#ZERO} turns the sizing off */
    public LocalShuffleService(int buffersPerChannel, int bufferSize, Duration inFlightTarget) {
        if (Objects.requireNonNull(inFlightTarget, "inFlightTarget").isNegative()) {
            throw new IllegalArgumentException("The in-flight target must not be negative, not " + inFlightTarget);
        }
        this.inFlightTarget = inFlightTarget;
        if (buffersPerChannel < 1) {
            throw new IllegalArgumentException("buffers-per-channel must be at least 1, not " + buffersPerChannel);
        }
        if (bufferSize < 16) {
            throw new IllegalArgumentException("The buffer size must be at least 16 bytes, not " + bufferSize);
        }
        this.buffersPerChannel = buffersPerChannel;
        this.bufferSize = bufferSize;
    }

    @Override
    public int buffersPerChannel() {
        return buffersPerChannel;
    }

    /** The size at which record writers hand a filled buffer to its channel. */
    @Override
    public int bufferSize() {
        return bufferSize;
    }

    @Override
    public Duration inFlightTarget() {
        return inFlightTarget;
    }

    /**
     * The channel named {@code key}, created on first request.
     *
     * @throws ChannelReleasedException if the key's job attempt was already released
     */
    @Override
    public LocalChannel channel(ChannelKey key) {
        Objects.requireNonNull(key, "key");
        failIfReleased(key);
        LocalChannel channel = channels.computeIfAbsent(key, k -> new LocalChannel(k.toString(), buffersPerChannel));
        // releaseAttempt marks the attempt before it scans the map, so either its scan saw this
        // channel or this check sees the mark.
        if (isReleased(key.jobId(), key.attempt())) {
            channels.remove(key, channel);
            channel.release(new IllegalStateException("Attempt " + key.attempt() + " of job " + key.jobId()
                    + " was released"));
            failIfReleased(key);
        }
        return channel;
    }

    /**
     * Releases and forgets every channel of attempt {@code attempt} of {@code jobId}, failing
     * blocked producers and consumers with a {@link ChannelReleasedException} caused by {@code
     * cause}. Attempts are numbered upward, so later requests for channels of this or any earlier
     * attempt fail.
     */
    @Override
    public void releaseAttempt(JobId jobId, int attempt, Throwable cause) {
        Objects.requireNonNull(jobId, "jobId");
        releasedUpTo.merge(jobId, attempt, Math::max);
        releaseMatching(jobId, attempt, cause);
    }

    /** Releases and forgets every channel of every attempt of {@code jobId}. */
    @Override
    public void releaseJob(JobId jobId) {
        Objects.requireNonNull(jobId, "jobId");
        releasedUpTo.put(jobId, Integer.MAX_VALUE);
        releaseMatching(jobId, -1, new IllegalStateException("Job " + jobId + " was released"));
    }

    /**
     * Releases and forgets every channel of every job, and forgets which attempts were released, so
     * that attempts numbered again from 1 get fresh channels. Only for an owner that is this
     * service's only user and knows none of its channels is in use any more (the in-memory part of
     * one task executor's network environment, after its job manager was lost and its tasks ended);
     * a service shared by task executors keeps its state ({@link #forgetAllDeployments} does nothing).
     */
    public void releaseAndForgetAll(Throwable cause) {
        Objects.requireNonNull(cause, "cause");
        releasedUpTo.clear();
        Iterator<Map.Entry<ChannelKey, LocalChannel>> it = channels.entrySet().iterator();
        while (it.hasNext()) {
            LocalChannel channel = it.next().getValue();
            it.remove();
            channel.release(cause);
        }
    }

    /** Channels currently registered (for tests and metrics). */
    public int channelCount() {
        return channels.size();
    }

    private void releaseMatching(JobId jobId, int attemptOrAll, Throwable cause) {
        Iterator<Map.Entry<ChannelKey, LocalChannel>> it = channels.entrySet().iterator();
        while (it.hasNext()) {
            Map.Entry<ChannelKey, LocalChannel> e = it.next();
            ChannelKey key = e.getKey();
            if (key.jobId().equals(jobId) && (attemptOrAll < 0 || key.attempt() == attemptOrAll)) {
                it.remove();
                e.getValue().release(cause);
            }
        }
    }

    private boolean isReleased(JobId jobId, int attempt) {
        Integer upTo = releasedUpTo.get(jobId);
        return upTo != null && attempt <= upTo;
    }

    private void failIfReleased(ChannelKey key) {
        if (isReleased(key.jobId(), key.attempt())) {
            throw new ChannelReleasedException("Channel " + key, new IllegalStateException("attempt "
                    + key.attempt() + " of job " + key.jobId() + " has ended; a new attempt needs new channels"));
        }
    }
}
