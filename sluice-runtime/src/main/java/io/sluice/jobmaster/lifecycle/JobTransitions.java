package io.sluice.jobmaster.lifecycle;

import static java.util.Map.entry;

import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Which state may follow which: the job lifecycle's diagram as data (docs/architecture.md draws
 * it). The states' contexts allow only these moves at compile time; {@link JobLifecycle} checks
 * them again at run time, so that no path around a context (a stale state, a new method) goes
 * unnoticed.
 *
 * <pre>
 * Created ─────────────► Running ──────────────► Finished
 *    │                   ▲  │  │
 *    ▼                   │  │  └──────► Failing ──► Failed
 * WaitingForResources ───┘  ▼
 *    ▲              Restarting ──► FallingBack ──► Running / WaitingForResources
 *    └─────────────────────┘
 * every state before an end ──► Cancelling ──► Canceled;  every state before an end ──► Suspended
 * </pre>
 *
 * <p>Stateless; any thread.
 */
final class JobTransitions {
    private static final Map<Class<? extends JobState>, Set<Class<? extends JobState>>> LEGAL = Map.ofEntries(
            entry(Created.class, Set.of(Running.class, WaitingForResources.class, Cancelling.class, Suspended.class)),
            entry(WaitingForResources.class, Set.of(Running.class, Cancelling.class, Suspended.class)),
            entry(Running.class, Set.of(Restarting.class, Failing.class, Finished.class, Cancelling.class,
                    Suspended.class)),
            entry(Restarting.class, Set.of(FallingBack.class, Running.class, WaitingForResources.class,
                    Cancelling.class, Suspended.class)),
            entry(FallingBack.class, Set.of(Running.class, WaitingForResources.class, Cancelling.class,
                    Suspended.class)),
            entry(Failing.class, Set.of(Failed.class, Cancelling.class, Suspended.class)),
            entry(Cancelling.class, Set.of(Canceled.class, Suspended.class)),
            entry(Suspended.class, Set.of()),
            entry(Finished.class, Set.of()),
            entry(Failed.class, Set.of()),
            entry(Canceled.class, Set.of()));

    private JobTransitions() {
    }

    static boolean isLegal(JobState from, JobState to) {
        return legalAfter(from.getClass()).contains(to.getClass());
    }

    /** The states that may follow {@code state}. */
    static Set<Class<? extends JobState>> legalAfter(Class<? extends JobState> state) {
        Set<Class<? extends JobState>> next = LEGAL.get(state);
        if (next == null) {
            throw new IllegalArgumentException("No transitions defined for job state " + state.getSimpleName());
        }
        return next;
    }

    /** Every state the table knows. */
    static Set<Class<? extends JobState>> states() {
        return LEGAL.keySet();
    }

    /** "Cancelling, Running, Suspended": the names of the states that may follow {@code state}, sorted. */
    static String describeLegalAfter(Class<? extends JobState> state) {
        Set<String> names = new TreeSet<>();
        legalAfter(state).forEach(c -> names.add(c.getSimpleName()));
        return names.isEmpty() ? "none (it is final for this job master)" : String.join(", ", names);
    }
}
