package io.sluice.ha;

import java.util.Optional;
import java.util.function.Consumer;

/**
 * Tells clients who currently leads one leadership (for example the dispatcher), by the leading
 * contender's id (the job manager id passed to {@link HighAvailabilityServices#dispatcherLeaderElection}).
 *
 * <p>Threading contract:
 * <ul>
 *   <li>{@link #currentLeader()} answers <b>from memory</b>, from any thread, including a component
 *       main thread; it never blocks. It may lag the election by the time the implementation needs
 *       to observe a change (a leader that was just granted or just lost may still be reported, or
 *       not yet), so a client that reaches the reported leader and is told it is a standby retries.</li>
 *   <li>{@link #addListener} and {@link #removeListener} are non-blocking and may be called from any
 *       thread. Listeners are called on the HA implementation's <b>own thread</b> (never the
 *       registering thread), one call at a time, in the order the changes were observed: once soon
 *       after registration with the then current value, and then on every change. A listener must
 *       not block; hand the value to your own thread.</li>
 * </ul>
 * The {@link HighAvailabilityServices} own the retrieval; closing them stops notifications.
 */
public interface LeaderRetrieval {

    /** The id of the contender that currently leads, or empty if none is known to lead. From memory. */
    Optional<String> currentLeader();

    /** Registers {@code listener} for leader changes (called on the HA implementation's thread). */
    void addListener(Consumer<Optional<String>> listener);

    /** Unregisters a listener; a notification already in progress may still arrive. */
    void removeListener(Consumer<Optional<String>> listener);
}
