package io.sluice.state.ttl;

import io.sluice.api.state.StateTtlConfig;
import io.sluice.util.Clock;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The background clean-up of a backend's states with a time-to-live: every
 * {@value StateTtlConfig#RECORDS_PER_CLEANUP_STEP} records (the backend calls {@link #onRecord} when
 * the current key is set) it takes one step over each such state, looking at
 * {@link StateTtlConfig#cleanupEntriesPerStep()} of its entries and removing the expired values, so
 * expired state goes away while the task runs, at a bounded cost per record, on both backends. (A
 * task that gets no records does not clean; reads still never return expired values.)
 *
 * <p>Threading: the task thread only.
 */
public final class TtlCleaner {
    private record Registered(StateTtlConfig config, TtlCleanupTarget target) {
    }

    private final Clock clock;
    private final Map<String, Registered> states = new LinkedHashMap<>();
    private int recordsUntilStep = StateTtlConfig.RECORDS_PER_CLEANUP_STEP;
    private long removed;

    public TtlCleaner(Clock clock) {
        this.clock = clock;
    }

    /** Cleans {@code stateName} with {@code config}'s time-to-live from now on (replacing an earlier registration). */
    public void register(String stateName, StateTtlConfig config, TtlCleanupTarget target) {
        if (config.cleanupEntriesPerStep() == 0) {
            states.remove(stateName);
        } else {
            states.put(stateName, new Registered(config, target));
        }
    }

    /** One record: every {@value StateTtlConfig#RECORDS_PER_CLEANUP_STEP}th takes a clean-up step. */
    public void onRecord() {
        if (states.isEmpty() || --recordsUntilStep > 0) {
            return;
        }
        recordsUntilStep = StateTtlConfig.RECORDS_PER_CLEANUP_STEP;
        step();
    }

    /** One step over every registered state, now. */
    public void step() {
        long now = clock.currentTimeMillis();
        for (Registered r : states.values()) {
            removed += r.target().removeExpired(r.config().cleanupEntriesPerStep(), now - r.config().ttl().toMillis());
        }
    }

    /** Values removed by the background clean-up so far (for tests and metrics). */
    public long removed() {
        return removed;
    }
}
