package io.sluice.network.netty;

import io.sluice.graph.JobId;
import io.sluice.network.ChannelKey;
import io.sluice.network.ChannelReleasedException;
import io.sluice.network.LocalChannel;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * The producer ends of this task executor's channels whose consumers run elsewhere, paired with the
 * consumers' requests. A producer task ({@link #register}) and the consumer's request arriving over
 * the network ({@link #request}) meet here in either order: a request that comes before its producer
 * is deployed waits, until the producer registers or the attempt is released. The pair is then bound
 * to the request's connection as a {@link ProducerStream}.
 *
 * <p>Threading: thread-safe; task threads register, event loops request, any thread releases. One
 * short lock per channel set-up, none per buffer.
 */
final class ProducerChannels {
    private final int capacity;
    private final Map<ChannelKey, Entry> entries = new HashMap<>();
    /** The highest released attempt of each job; Integer.MAX_VALUE once the whole job was released. */
    private final Map<JobId, Integer> releasedUpTo = new HashMap<>();

    /** A channel's producer end and/or the consumer's request for it. */
    private static final class Entry {
        LocalChannel channel;
        ProducerConnection requester;
        int requestId;
        int credits;
    }

    ProducerChannels(int capacity) {
        this.capacity = capacity;
    }

    /** Called by the producer task: its end of {@code key}, bound at once if the consumer already asked. */
    LocalChannel register(ChannelKey key) {
        Entry e;
        synchronized (this) {
            if (isReleased(key)) {
                throw new ChannelReleasedException("Channel " + key, new IllegalStateException("attempt "
                        + key.attempt() + " of job " + key.jobId() + " has ended; a new attempt needs new channels"));
            }
            e = entries.computeIfAbsent(key, k -> new Entry());
            if (e.channel != null) {
                throw new IllegalStateException("Channel " + key + " already has a producer");
            }
            e.channel = new LocalChannel(key + " (to a remote consumer)", capacity);
            if (e.requester == null) {
                return e.channel;
            }
        }
        e.requester.bind(e.requestId, key, e.channel, e.credits);
        return e.channel;
    }

    /** Called by a connection's event loop: the consumer asks for {@code key} as channel {@code id} of {@code conn}. */
    void request(ChannelKey key, ProducerConnection conn, int id, int credits) {
        LocalChannel channel;
        String refusal = null;
        synchronized (this) {
            Entry e = entries.get(key);
            if (isReleased(key)) {
                refusal = "attempt " + key.attempt() + " of job " + key.jobId() + " was already released here";
                channel = null;
            } else if (e != null && e.requester != null) {
                refusal = "the channel was already requested by another consumer (" + e.requester.remoteAddress() + ")";
                channel = null;
            } else {
                if (e == null) {
                    e = new Entry();
                    entries.put(key, e);
                }
                e.requester = conn;
                e.requestId = id;
                e.credits = credits;
                channel = e.channel;
            }
        }
        if (refusal != null) {
            conn.sendReleased(id, refusal);
        } else if (channel != null) {
            conn.bind(id, key, channel, credits);
        }
    }

    /** The stream of {@code key} ended (its end of partition went out, or its release was told). */
    synchronized void ended(ChannelKey key, LocalChannel channel) {
        Entry e = entries.get(key);
        if (e != null && e.channel == channel) {
            entries.remove(key);
        }
    }

    /** The consumer released its end: releases the producer's end with {@code cause}. Event loop. */
    void cancelled(ChannelKey key, ProducerConnection conn, RuntimeException cause) {
        LocalChannel channel = null;
        synchronized (this) {
            Entry e = entries.get(key);
            if (e != null && e.requester == conn) {
                entries.remove(key);
                channel = e.channel;
            }
        }
        if (channel != null) {
            channel.release(cause);
        }
    }

    /** The connection of these requests closed: their producer ends are released with {@code cause}. Event loop. */
    void connectionClosed(ProducerConnection conn, RuntimeException cause) {
        List<LocalChannel> toRelease = new ArrayList<>();
        synchronized (this) {
            for (Iterator<Entry> it = entries.values().iterator(); it.hasNext(); ) {
                Entry e = it.next();
                if (e.requester == conn) {
                    it.remove();
                    if (e.channel != null) {
                        toRelease.add(e.channel);
                    }
                }
            }
        }
        toRelease.forEach(c -> c.release(cause));
    }

    /**
     * Releases the producer ends of attempt {@code attempt} (all attempts: -1) of {@code jobId};
     * consumers that asked for them, or ask later, are told that they are released.
     */
    void release(JobId jobId, int attemptOrAll, Throwable cause) {
        List<Entry> matching = new ArrayList<>();
        synchronized (this) {
            releasedUpTo.merge(jobId, attemptOrAll < 0 ? Integer.MAX_VALUE : attemptOrAll, Math::max);
            for (Iterator<Map.Entry<ChannelKey, Entry>> it = entries.entrySet().iterator(); it.hasNext(); ) {
                Map.Entry<ChannelKey, Entry> me = it.next();
                ChannelKey key = me.getKey();
                if (key.jobId().equals(jobId) && (attemptOrAll < 0 || key.attempt() <= attemptOrAll)) {
                    it.remove();
                    matching.add(me.getValue());
                }
            }
        }
        for (Entry e : matching) {
            if (e.channel != null) {
                // A bound stream (or one whose binding is on its way: attach reports the release) tells its consumer.
                e.channel.release(cause);
            } else if (e.requester != null) {
                e.requester.sendReleased(e.requestId, String.valueOf(cause.getMessage()));
            }
        }
    }

    /**
     * Releases every producer end, tells every consumer still waiting for one that it is released,
     * and forgets which attempts were released, so that attempts numbered again from 1 (by a job
     * manager in another process) can register again; see
     * {@link NettyShuffleEnvironment#forgetAllDeployments}.
     */
    void releaseAndForgetAll(Throwable cause) {
        List<Entry> all;
        synchronized (this) {
            all = new ArrayList<>(entries.values());
            entries.clear();
            releasedUpTo.clear();
        }
        for (Entry e : all) {
            if (e.channel != null) {
                e.channel.release(cause);
            } else if (e.requester != null) {
                e.requester.sendReleased(e.requestId, String.valueOf(cause.getMessage()));
            }
        }
    }

    /** Releases every producer end (the environment closes). */
    void releaseAll(Throwable cause) {
        List<Entry> all;
        synchronized (this) {
            all = new ArrayList<>(entries.values());
            entries.clear();
        }
        for (Entry e : all) {
            if (e.channel != null) {
                e.channel.release(cause);
            }
        }
    }

    synchronized int size() {
        return entries.size();
    }

    private boolean isReleased(ChannelKey key) {
        Integer upTo = releasedUpTo.get(key.jobId());
        return upTo != null && key.attempt() <= upTo;
    }
}
