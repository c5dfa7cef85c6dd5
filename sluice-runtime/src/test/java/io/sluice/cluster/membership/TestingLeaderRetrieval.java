package io.sluice.cluster.membership;

import io.sluice.ha.LeaderRetrieval;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/** A {@link LeaderRetrieval} whose leader the test sets; listeners are called on the test's thread. */
public final class TestingLeaderRetrieval implements LeaderRetrieval {
    private final List<Consumer<Optional<String>>> listeners = new CopyOnWriteArrayList<>();
    private volatile Optional<String> leader = Optional.empty();

    public void setLeader(String contenderId) {
        leader = Optional.ofNullable(contenderId);
        listeners.forEach(l -> l.accept(leader));
    }

    @Override
    public Optional<String> currentLeader() {
        return leader;
    }

    @Override
    public void addListener(Consumer<Optional<String>> listener) {
        listeners.add(listener);
        listener.accept(leader);
    }

    @Override
    public void removeListener(Consumer<Optional<String>> listener) {
        listeners.remove(listener);
    }
}
