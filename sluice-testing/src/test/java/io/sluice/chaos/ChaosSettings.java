package io.sluice.chaos;

import java.time.Duration;
import java.util.Set;

/**
 * How big a chaos run is. Everything not named here runs with Sluice's defaults (restart
 * strategy, tolerable checkpoint failures, recovery backoff), except the checkpoint interval,
 * shortened so that a run of a few seconds sees many checkpoints.
 *
 * @param jobs               jobs run side by side
 * @param records            records per job (a bounded source)
 * @param recordsPerSecond   source rate per job
 * @param steps              fault steps per run
 * @param spanMillis         the faults are spread over about this long
 * @param actions            the actions steps are drawn from
 * @param checkpointInterval of every job
 * @param endTimeout         how long each job may take to end once storage is healed
 * @param mutableState       whether the counter mutates the value it got from state in place
 *                           ({@code byte[]}) or stores a new immutable {@code Long} each time
 */
record ChaosSettings(int jobs, long records, double recordsPerSecond, int steps, long spanMillis,
                     Set<ChaosAction> actions, Duration checkpointInterval, Duration endTimeout,
                     boolean mutableState) {
    static final int KEYS = 8;
    static final int PARALLELISM = 2;
}
