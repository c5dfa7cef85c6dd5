package io.sluice.ha.embedded;

import io.sluice.ha.LeaderContender;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/** A contender that records its callbacks, with the thread each arrived on, for tests to await. */
final class RecordingContender implements LeaderContender {
    static final Duration WAIT = Duration.ofSeconds(10);

    /** One callback: a grant (with its session) or a revocation (session {@code null}). */
    record Event(UUID session, String thread) {
        boolean isGrant() {
            return session != null;
        }
    }

    private final String name;
    private final BlockingQueue<Event> events = new LinkedBlockingQueue<>();

    RecordingContender(String name) {
        this.name = name;
    }

    @Override
    public void grantLeadership(UUID leaderSessionId) {
        events.add(new Event(leaderSessionId, Thread.currentThread().getName()));
    }

    @Override
    public void revokeLeadership() {
        events.add(new Event(null, Thread.currentThread().getName()));
    }

    @Override
    public String description() {
        return name;
    }

    /** The next callback, failing if none arrives in time. */
    Event next() throws InterruptedException {
        Event e = events.poll(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        if (e == null) {
            throw new AssertionError(name + " got no election callback within " + WAIT);
        }
        return e;
    }

    UUID awaitGrant() throws InterruptedException {
        Event e = next();
        if (!e.isGrant()) {
            throw new AssertionError(name + " expected a grant but was revoked");
        }
        return e.session();
    }

    void awaitRevoke() throws InterruptedException {
        Event e = next();
        if (e.isGrant()) {
            throw new AssertionError(name + " expected a revocation but was granted session " + e.session());
        }
    }

    boolean hasNoEvents() {
        return events.isEmpty();
    }
}
