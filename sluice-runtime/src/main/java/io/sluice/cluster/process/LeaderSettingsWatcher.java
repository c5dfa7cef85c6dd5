package io.sluice.cluster.process;

import io.sluice.concurrent.BackoffPolicy;
import io.sluice.ha.LeaderRetrieval;
import io.sluice.ha.LeaderSettingsStore;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A standby's comparison with each new leader: a job manager that started while none led (two
 * started together, or during a failover) compared nothing at start ({@link SharedSettingsCheck}),
 * so when leader retrieval reports another job manager as leader it reads the settings that leader
 * publishes (retrying a few times: the leader publishes them just after its grant) and logs the
 * differences, each key with both values: at ERROR for a required key (this job manager could not
 * load the jobs' jars if it took over; it keeps running, since it can no longer refuse to start), at
 * WARN for the others. A leader already compared with is not compared again.
 *
 * <p>Threading: the leader listener runs on the HA services' thread and only hands over to the I/O
 * executor, where the store is read.
 */
final class LeaderSettingsWatcher implements Consumer<Optional<String>> {
    private static final Logger LOG = LoggerFactory.getLogger(LeaderSettingsWatcher.class);
    static final int ATTEMPTS = 10;
    static final Duration RETRY = Duration.ofMillis(500);
    /** Up to {@link #ATTEMPTS} reads, {@link #RETRY} apart. */
    static final BackoffPolicy READS = BackoffPolicy.fixed(RETRY).toBuilder().maxAttempts(ATTEMPTS).build();

    private final LeaderSettingsStore store;
    private final String jobManagerId;
    private final String ownContenderId;
    private final SharedSettings mine;
    private final Executor io;
    private final Function<Duration, Executor> delayed;
    /** The contender id of the last leader compared with (or being compared with). */
    private final AtomicReference<String> compared;

    /**
     * @param alreadyCompared the leader compared with at start, or null
     * @param delayed         an executor that runs a task on the I/O executor after the given delay
     */
    LeaderSettingsWatcher(LeaderSettingsStore store, String jobManagerId, String ownContenderId, SharedSettings mine,
                          Executor io, Function<Duration, Executor> delayed, String alreadyCompared) {
        this.store = store;
        this.jobManagerId = jobManagerId;
        this.ownContenderId = ownContenderId;
        this.mine = mine;
        this.io = io;
        this.delayed = delayed;
        this.compared = new AtomicReference<>(alreadyCompared);
    }

    /** Registers with {@code retrieval}. */
    void start(LeaderRetrieval retrieval) {
        retrieval.addListener(this);
    }

    @Override
    public void accept(Optional<String> leader) {
        if (leader.isEmpty() || leader.get().equals(ownContenderId)) {
            return;
        }
        String previous = compared.getAndSet(leader.get());
        if (!leader.get().equals(previous)) {
            io.execute(() -> attempt(leader.get(), 1));
        }
    }

    private void attempt(String leader, int attempt) {
        if (!leader.equals(compared.get())) {
            return; // another leader came meanwhile
        }
        Optional<LeaderSettingsStore.Published> published;
        try {
            published = store.read().filter(p -> p.contenderId().equals(leader));
        } catch (IOException | RuntimeException e) {
            published = Optional.empty();
        }
        if (published.isEmpty()) {
            if (READS.allowsRetry(attempt)) {
                delayed.apply(READS.delayAfter(attempt)).execute(() -> attempt(leader, attempt + 1));
            } else {
                LOG.info("Job manager {}: the leading job manager {} published no shared settings; not compared",
                        jobManagerId, leader);
            }
            return;
        }
        List<SharedSettings.Difference> differences =
                mine.differencesFrom(SharedSettings.published(published.get().settings()));
        List<SharedSettings.Difference> required = differences.stream().filter(SharedSettings.Difference::required).toList();
        if (!required.isEmpty()) {
            LOG.error("Job manager {}: {} differs from the new leading job manager's ({}): {}. This standby could not load"
                    + " the jobs' jars if it took over; stop it, set the leader's value and start it again.", jobManagerId,
                    required.stream().map(SharedSettings.Difference::key).collect(Collectors.joining(", ")), leader,
                    SharedSettingsCheck.describe(required));
        }
        List<SharedSettings.Difference> others = differences.stream().filter(d -> !d.required()).toList();
        if (!others.isEmpty()) {
            LOG.warn("Job manager {}: settings differ from the new leading job manager's ({}): {}; set the same values"
                    + " on every job manager.", jobManagerId, leader, SharedSettingsCheck.describe(others));
        }
    }
}
