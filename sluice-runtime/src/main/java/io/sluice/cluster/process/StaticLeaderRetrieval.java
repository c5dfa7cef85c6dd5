package io.sluice.cluster.process;

import io.sluice.ha.LeaderRetrieval;
import java.util.Optional;
import java.util.concurrent.Executor;
import java.util.function.Consumer;

/**
 * A {@link LeaderRetrieval} that always names the same leader: the job manager at
 * {@code jobmanager.rpc.host:jobmanager.rpc.port}, for task managers of a cluster whose one job
 * manager uses embedded HA services (which coordinate only inside its process, so task managers
 * cannot follow its election). Listeners are told once, on {@code notifier}.
 */
final class StaticLeaderRetrieval implements LeaderRetrieval {
    private final String leader;
    private final Executor notifier;

    StaticLeaderRetrieval(String leader, Executor notifier) {
        this.leader = leader;
        this.notifier = notifier;
    }

    @Override
    public Optional<String> currentLeader() {
        return Optional.of(leader);
    }

    @Override
    public void addListener(Consumer<Optional<String>> listener) {
        notifier.execute(() -> listener.accept(Optional.of(leader)));
    }

    @Override
    public void removeListener(Consumer<Optional<String>> listener) {
    }
}
