package io.sluice.chaos;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Random;
import java.util.Set;

/**
 * A seeded, random interleaving of faults for {@link ChaosRun}: steps at increasing offsets from
 * the start of the run, each an action and (for per-job actions) a job index. The same seed and
 * settings give the same plan. A plan always ends with {@link ChaosAction#STORAGE_HEAL}, each job
 * is cancelled at most once and has at most {@link #MAX_CORRUPTIONS_PER_JOB} state files corrupted
 * (fewer than the retained checkpoints, so a usable one always remains). Immutable.
 *
 * @param seed  the seed it was generated from (printed by every run, to replay it)
 * @param steps in time order
 */
record ChaosPlan(long seed, int jobs, List<Step> steps) {
    /** Below the default {@code checkpoints.retained} (3): at least one retained checkpoint stays intact. */
    static final int MAX_CORRUPTIONS_PER_JOB = 2;

    /** One step: {@code action} at {@code atMillis} after the start, on job {@code job} (or -1). */
    record Step(long atMillis, ChaosAction action, int job) {
        @Override
        public String toString() {
            return "+" + atMillis + " ms " + action + (job >= 0 ? " job " + job : "");
        }
    }

    ChaosPlan {
        steps = List.copyOf(steps);
    }

    /**
     * {@code count} steps spread over {@code spanMillis}, with actions drawn from {@code allowed}
     * (cancel with a lower weight: a cancelled job tests less of the rest).
     */
    static ChaosPlan generate(long seed, int jobs, int count, long spanMillis, Set<ChaosAction> allowed) {
        Random random = new Random(seed);
        List<ChaosAction> weighted = new ArrayList<>();
        for (ChaosAction a : allowed) {
            int weight = a == ChaosAction.CANCEL ? 1 : 3;
            for (int i = 0; i < weight; i++) {
                weighted.add(a);
            }
        }
        Set<Integer> cancelled = new java.util.HashSet<>();
        java.util.Map<Integer, Integer> corruptions = new java.util.HashMap<>();
        List<Step> steps = new ArrayList<>();
        long at = 0;
        for (int i = 0; i < count && !weighted.isEmpty(); i++) {
            at += 1 + random.nextInt((int) Math.max(1, 2 * spanMillis / count));
            ChaosAction action = weighted.get(random.nextInt(weighted.size()));
            int job = action.perJob() ? random.nextInt(jobs) : -1;
            if (action == ChaosAction.CANCEL && !cancelled.add(job)) {
                action = ChaosAction.TASK_FAILURE;
            }
            if (action == ChaosAction.CORRUPT_STATE_FILE
                    && corruptions.merge(job, 1, Integer::sum) > MAX_CORRUPTIONS_PER_JOB) {
                action = ChaosAction.TASK_FAILURE;
            }
            steps.add(new Step(at, action, job));
        }
        steps.add(new Step(at + 1, ChaosAction.STORAGE_HEAL, -1));
        return new ChaosPlan(seed, jobs, steps);
    }

    static Set<ChaosAction> all() {
        return EnumSet.allOf(ChaosAction.class);
    }

    @Override
    public String toString() {
        return "chaos plan seed=" + seed + " jobs=" + jobs + " " + steps;
    }
}
