package io.sluice.ha.embedded;

import io.sluice.concurrent.DaemonThreadFactory;
import io.sluice.ha.LeaderContender;
import io.sluice.ha.LeaderElection;
import io.sluice.ha.LeadershipLostException;
import io.sluice.rpc.MainThreads;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * In-JVM leader elections, one per leadership name (for example {@code "job-<jobId>"}), shared by
 * every {@link EmbeddedHaServices} of the JVM that uses the same HA directory: instances are kept
 * in a static registry keyed by the directory's canonical path, so two job managers in one JVM on
 * one directory compete in the same election. Obtain one with {@link #acquire(Path)} and give it
 * back with {@link #release()}; the last release stops its thread. The registry is also what makes
 * the directory's exclusive lock ({@link HaDirectoryLock}) per process: the first acquire in the
 * JVM takes it, the last release gives it back, and another process gets
 * {@link HaDirectoryLockedException}.
 *
 * <p>Rules: the first contender to join leads. When the leader closes its {@link LeaderElection},
 * or is revoked with {@link #revokeLeader(String)}, leadership passes to the next contender in
 * join order, under a fresh session id. A revoked contender stays in the election and queues up
 * again behind the others (alone, it is granted again with a fresh session).
 *
 * <p>Threading: each service owns one notification thread. Joining and leaving
 * ({@link LeaderElection#startLeaderElection}, {@link LeaderElection#close}) only enqueue work on
 * it and return at once, so they may be called from main threads. Grant and revoke callbacks are
 * delivered on that thread, in the order the changes happened; never on the caller's thread.
 * {@link LeaderElection#hasLeadership} answers from memory without locking.
 *
 * <p>Leader retrieval: {@link #currentLeader(String)} answers from memory (the leading contender's
 * id, set when it is granted, before its grant callback runs), and leader listeners
 * ({@link #addLeaderListener}) are called on the same notification thread, in order, with the
 * leader at each change.
 *
 * <p>Fencing: each election has one lock. {@link LeaderElection#runIfLeader} holds it while it
 * checks the session and runs the write, and every change of leader (leave, revoke) takes the same
 * lock. So a write either completes before the revocation (which waits for it) or is refused with
 * {@link LeadershipLostException} without running: no write of an old session lands after a new
 * leader took over. In embedded mode this lock is the whole fencing mechanism. Writes under the
 * lock block leader changes of that one election only, and only on the thread that makes them.
 */
public final class EmbeddedLeaderElectionService {
    private static final Logger LOG = LoggerFactory.getLogger(EmbeddedLeaderElectionService.class);
    private static final Map<Path, EmbeddedLeaderElectionService> REGISTRY = new HashMap<>();

    private final Path directory;
    private final HaDirectoryLock processLock;
    private final ExecutorService notifier;
    private final Map<String, Election> elections = new ConcurrentHashMap<>();
    // Guarded by REGISTRY.
    private int references;

    private EmbeddedLeaderElectionService(Path directory, HaDirectoryLock processLock) {
        this.directory = directory;
        this.processLock = processLock;
        this.notifier = Executors.newSingleThreadExecutor(
                DaemonThreadFactory.named("sluice-ha-election-" + directory.getFileName()));
    }

    /**
     * The service for the HA directory {@code haDirectory} (created if missing), shared with every
     * other user of the same directory in this JVM. The first acquire in the JVM takes the
     * directory's process lock ({@link HaDirectoryLock}); it fails with
     * {@link HaDirectoryLockedException} if another process holds it. Blocking (resolves the
     * canonical path, locks); call {@link #release()} once when done.
     */
    public static EmbeddedLeaderElectionService acquire(Path haDirectory) {
        Path canonical;
        try {
            Path absolute = haDirectory.toAbsolutePath().normalize();
            Files.createDirectories(absolute);
            canonical = absolute.toRealPath();
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot use HA directory " + haDirectory.toAbsolutePath()
                    + " for leader election (" + e + "); check that it is a writable directory", e);
        }
        synchronized (REGISTRY) {
            EmbeddedLeaderElectionService service = REGISTRY.get(canonical);
            if (service == null) {
                service = new EmbeddedLeaderElectionService(canonical, HaDirectoryLock.acquire(canonical));
                REGISTRY.put(canonical, service);
            }
            service.references++;
            return service;
        }
    }

    /**
     * Gives back one {@link #acquire}; the last one stops the notification thread after queued
     * callbacks ran and releases the directory's process lock.
     */
    public void release() {
        synchronized (REGISTRY) {
            if (references == 0) {
                return;
            }
            if (--references == 0) {
                REGISTRY.remove(directory);
                notifier.shutdown();
                processLock.release();
            }
        }
    }

    /** The directory's process lock, held while this service is registered. */
    HaDirectoryLock processLock() {
        return processLock;
    }

    /** The canonical HA directory this service is registered under. */
    public Path directory() {
        return directory;
    }

    /**
     * A new, not yet started place in the election {@code name}. {@code contenderId} is for
     * messages only. Non-blocking.
     */
    public LeaderElection createLeaderElection(String name, String contenderId) {
        Objects.requireNonNull(name, "name");
        return new Participant(elections.computeIfAbsent(name, Election::new), contenderId);
    }

    /**
     * Test hook: takes leadership of {@code name} away from its current leader as if its lease
     * expired, and grants it to the next contender with a fresh session. Waits for a fenced write
     * in progress to complete. Returns whether there was a leader to revoke.
     */
    public boolean revokeLeader(String name) {
        Election election = elections.get(name);
        if (election == null) {
            return false;
        }
        election.lock.lock();
        try {
            Participant leader = election.leadership.leader();
            if (leader == null) {
                return false;
            }
            election.revokeCurrent();
            election.waiting.addLast(leader);
            election.grantNext();
            return true;
        } finally {
            election.lock.unlock();
        }
    }

    /**
     * The contender id of {@code name}'s current leader, or empty. From memory, any thread, non-blocking.
     * Reports a leader as soon as it is chosen, possibly before its grant callback ran.
     */
    public Optional<String> currentLeader(String name) {
        Election election = elections.get(name);
        Participant leader = election == null ? null : election.leadership.leader();
        return leader == null ? Optional.empty() : Optional.of(leader.contenderId);
    }

    /**
     * Calls {@code listener} on the notification thread with {@code name}'s leader (contender id):
     * once soon with the current one, then at every change, in order. Non-blocking.
     */
    public void addLeaderListener(String name, Consumer<Optional<String>> listener) {
        Objects.requireNonNull(listener, "listener");
        elections.computeIfAbsent(name, Election::new).listeners.add(listener);
        enqueue(() -> callListener(listener, currentLeader(name)));
    }

    /** Unregisters a listener of {@link #addLeaderListener}. Non-blocking. */
    public void removeLeaderListener(String name, Consumer<Optional<String>> listener) {
        Election election = elections.get(name);
        if (election != null) {
            election.listeners.remove(listener);
        }
    }

    private static void callListener(Consumer<Optional<String>> listener, Optional<String> leader) {
        try {
            listener.accept(leader);
        } catch (RuntimeException e) {
            LOG.error("A leader listener failed", e);
        }
    }

    private void deliver(Participant participant, Runnable callback) {
        try {
            notifier.execute(() -> {
                try {
                    callback.run();
                } catch (RuntimeException e) {
                    LOG.error("Leader contender {} of {} failed in an election callback", participant.description(),
                            participant.election.name, e);
                }
            });
        } catch (RejectedExecutionException e) {
            LOG.debug("Election service for {} is released; dropping a callback for {}", directory,
                    participant.description());
        }
    }

    private void enqueue(Runnable change) {
        try {
            notifier.execute(change);
        } catch (RejectedExecutionException e) {
            LOG.debug("Election service for {} is released; dropping a membership change", directory);
        }
    }

    /** Who leads, published as one immutable value so that {@code hasLeadership} needs no lock. */
    private record Leadership(Participant leader, UUID session) {
        static final Leadership NONE = new Leadership(null, null);
    }

    /** One leadership name: its lock, the current leader and the contenders waiting in join order. */
    private final class Election {
        final String name;
        final ReentrantLock lock = new ReentrantLock();
        // Guarded by lock.
        final Deque<Participant> waiting = new ArrayDeque<>();
        final java.util.List<Consumer<Optional<String>>> listeners = new CopyOnWriteArrayList<>();
        // Written under lock, read without.
        volatile Leadership leadership = Leadership.NONE;

        Election(String name) {
            this.name = name;
        }

        /** Under lock: tells the leader listeners, on the notification thread, who leads now. */
        void publishLeader() {
            if (listeners.isEmpty()) {
                return;
            }
            Participant leader = leadership.leader();
            Optional<String> value = leader == null ? Optional.empty() : Optional.of(leader.contenderId);
            for (Consumer<Optional<String>> listener : listeners) {
                enqueue(() -> {
                    if (listeners.contains(listener)) {
                        callListener(listener, value);
                    }
                });
            }
        }

        /** Under lock. */
        void revokeCurrent() {
            Participant old = leadership.leader();
            leadership = Leadership.NONE;
            if (old != null) {
                LOG.info("{} no longer leads {}", old.description(), name);
                deliver(old, old.contender::revokeLeadership);
                publishLeader();
            }
        }

        /** Under lock. */
        void grantNext() {
            Participant next;
            do {
                next = waiting.pollFirst();
            } while (next != null && next.closed);
            if (next == null) {
                return;
            }
            UUID session = UUID.randomUUID();
            leadership = new Leadership(next, session);
            LOG.info("{} leads {} (session {})", next.description(), name, session);
            publishLeader();
            Participant granted = next;
            deliver(granted, () -> {
                if (!granted.closed) {
                    granted.contender.grantLeadership(session);
                }
            });
        }
    }

    /** One contender's place in an election. */
    private final class Participant implements LeaderElection {
        final Election election;
        final String contenderId;
        volatile LeaderContender contender;
        volatile boolean closed;
        private boolean started;

        Participant(Election election, String contenderId) {
            this.election = election;
            this.contenderId = contenderId;
        }

        String description() {
            LeaderContender c = contender;
            return c != null ? c.description() : "contender " + contenderId;
        }

        @Override
        public synchronized void startLeaderElection(LeaderContender leaderContender) {
            Objects.requireNonNull(leaderContender, "contender");
            if (started || closed) {
                throw new IllegalStateException("The election place of " + contenderId + " in " + election.name
                        + " was already started or closed; create a new one with createLeaderElection");
            }
            started = true;
            contender = leaderContender;
            enqueue(() -> {
                election.lock.lock();
                try {
                    if (closed) {
                        return;
                    }
                    election.waiting.addLast(this);
                    if (election.leadership.leader() == null) {
                        election.grantNext();
                    }
                } finally {
                    election.lock.unlock();
                }
            });
        }

        @Override
        public boolean hasLeadership(UUID leaderSessionId) {
            Leadership current = election.leadership;
            return !closed && current.leader() == this && current.session().equals(leaderSessionId);
        }

        @Override
        public void runIfLeader(UUID leaderSessionId, FencedWrite write) throws Exception {
            MainThreads.checkNotMainThread("fenced HA write of " + election.name);
            election.lock.lockInterruptibly();
            try {
                if (!hasLeadership(leaderSessionId)) {
                    throw new LeadershipLostException(description() + " no longer leads " + election.name
                            + " (session " + leaderSessionId + "); the write was not performed");
                }
                write.run();
            } finally {
                election.lock.unlock();
            }
        }

        @Override
        public void close() {
            synchronized (this) {
                if (closed) {
                    return;
                }
                closed = true;
                if (!started) {
                    return;
                }
            }
            enqueue(() -> {
                election.lock.lock();
                try {
                    election.waiting.remove(this);
                    if (election.leadership.leader() == this) {
                        election.revokeCurrent();
                        election.grantNext();
                    }
                } finally {
                    election.lock.unlock();
                }
            });
        }
    }
}
