package io.sluice.ha.zookeeper;

import io.sluice.concurrent.BackoffPolicy;
import io.sluice.ha.LeaderRetrieval;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.framework.state.ConnectionStateListener;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Leader retrieval from a Curator {@code LeaderLatch} path: the leader is the latch node with the
 * lowest sequence number (what {@code LeaderLatch} itself uses), and its data is the leader's
 * contender id ({@code LeaderLatch} stores the participant id there).
 *
 * <p>Threading: every ZooKeeper read runs on this retrieval's own {@link SerialExecutor} (never on
 * the services' notification thread, where a read stuck in Curator's foreground retries would
 * hold back the elections' revocations), triggered by a children watch on the latch path (or an
 * exists watch while it is missing), by a reconnection, and every 2 s as a safety net; requests
 * while a read is queued are coalesced, and a failed read is retried after 200 ms.
 * {@link #currentLeader()} returns the last value read, from memory. Listeners are called on the
 * notification thread, in order: once after registration with the current value, then at each
 * change.
 */
public final class ZooKeeperLeaderRetrieval implements LeaderRetrieval {
    private static final Logger LOG = LoggerFactory.getLogger(ZooKeeperLeaderRetrieval.class);
    private static final long POLL_MILLIS = 2_000;
    /** A failed read is read again after this (besides the periodic re-read), for as long as it fails. */
    private static final BackoffPolicy REREAD = BackoffPolicy.fixed(Duration.ofMillis(200));

    private final ZooKeeperHaServices services;
    private final String latchPath;
    private final List<Consumer<Optional<String>>> listeners = new CopyOnWriteArrayList<>();
    private final SerialExecutor zooKeeper;
    private final AtomicBoolean refreshQueued = new AtomicBoolean();
    private final Watcher watcher = event -> requestRefresh();
    private final ConnectionStateListener connectionListener = (c, state) -> {
        if (state == ConnectionState.RECONNECTED || state == ConnectionState.CONNECTED) {
            requestRefresh();
        }
    };
    private volatile Optional<String> leader = Optional.empty();
    private volatile boolean closed;
    /** Reads that failed in a row; only on {@link #zooKeeper}. */
    private int failedReads;

    ZooKeeperLeaderRetrieval(ZooKeeperHaServices services, String latchPath) {
        this.services = services;
        this.latchPath = latchPath;
        this.zooKeeper = services.serialExecutor("leader retrieval of " + latchPath);
    }

    /** Non-blocking: registers for reconnections and schedules the first read and the periodic re-read. */
    void start() {
        services.client().getConnectionStateListenable().addListener(connectionListener, services.notifier());
        requestRefresh();
        try {
            services.notifier().scheduleWithFixedDelay(this::requestRefresh, POLL_MILLIS, POLL_MILLIS,
                    TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            // closed
        }
    }

    void close() {
        closed = true;
        services.client().getConnectionStateListenable().removeListener(connectionListener);
    }

    @Override
    public Optional<String> currentLeader() {
        return leader;
    }

    @Override
    public void addListener(Consumer<Optional<String>> listener) {
        Objects.requireNonNull(listener, "listener");
        listeners.add(listener);
        onNotifier(() -> call(listener, leader));
    }

    @Override
    public void removeListener(Consumer<Optional<String>> listener) {
        listeners.remove(listener);
    }

    /** Any thread, non-blocking: queues one read unless one is queued already. */
    private void requestRefresh() {
        if (closed || !refreshQueued.compareAndSet(false, true)) {
            return;
        }
        try {
            zooKeeper.execute(this::refresh);
        } catch (RejectedExecutionException e) {
            refreshQueued.set(false); // closed
        }
    }

    /** Serial executor: reads the lowest latch node and its data, publishes a change on the notification thread. */
    private void refresh() {
        refreshQueued.set(false);
        if (closed) {
            return;
        }
        Optional<String> now;
        try {
            now = read();
        } catch (Exception e) {
            LOG.debug("Could not read the leader of {} ({}); retrying", latchPath, e.toString());
            try {
                services.notifier().schedule(this::requestRefresh, REREAD.delayAfter(++failedReads).toNanos(),
                        TimeUnit.NANOSECONDS);
            } catch (RejectedExecutionException closedNow) {
                // closed
            }
            return;
        }
        failedReads = 0;
        if (!now.equals(leader)) {
            LOG.info("Leader of {} is now {}", latchPath, now.orElse("(none)"));
            leader = now;
            onNotifier(() -> {
                for (Consumer<Optional<String>> l : listeners) {
                    call(l, now);
                }
            });
        }
    }

    private Optional<String> read() throws Exception {
        return readLeader(services, latchPath, watcher);
    }

    /**
     * The data (contender id) of the lowest latch node under {@code latchPath}: who leads now, read
     * from ZooKeeper; empty when none leads. With {@code watcher} (or null) on the listing. Blocking.
     */
    static Optional<String> readLeader(ZooKeeperHaServices services, String latchPath, Watcher watcher) throws Exception {
        for (int attempt = 0; attempt < 5; attempt++) {
            List<String> children;
            ZooKeeperGuard.check("leader retrieval", latchPath);
            try {
                children = watcher == null ? services.client().getChildren().forPath(latchPath)
                        : services.client().getChildren().usingWatcher(watcher).forPath(latchPath);
            } catch (KeeperException.NoNodeException e) {
                if ((watcher == null ? services.client().checkExists().forPath(latchPath)
                        : services.client().checkExists().usingWatcher(watcher).forPath(latchPath)) != null) {
                    continue; // created meanwhile
                }
                return Optional.empty();
            }
            Optional<String> lowest = children.stream().filter(n -> n.contains("latch-"))
                    .min(Comparator.comparing(n -> n.substring(n.lastIndexOf("latch-") + "latch-".length())));
            if (lowest.isEmpty()) {
                return Optional.empty();
            }
            try {
                byte[] data = services.client().getData().forPath(ZKPaths.makePath(latchPath, lowest.get()));
                return data == null || data.length == 0 ? Optional.empty()
                        : Optional.of(new String(data, StandardCharsets.UTF_8));
            } catch (KeeperException.NoNodeException e) {
                // the leader's node went between the listing and the read: list again
            }
        }
        throw new IllegalStateException("the latch nodes under " + latchPath + " kept changing");
    }

    private static void call(Consumer<Optional<String>> listener, Optional<String> value) {
        try {
            listener.accept(value);
        } catch (RuntimeException e) {
            LOG.error("A leader listener failed", e);
        }
    }

    private void onNotifier(Runnable task) {
        try {
            services.notifier().execute(task);
        } catch (RejectedExecutionException e) {
            // closed
        }
    }
}
