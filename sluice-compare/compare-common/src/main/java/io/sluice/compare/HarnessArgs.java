package io.sluice.compare;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.Set;

/**
 * Command line of every harness: {@code --mode full|smoke --out <file.tsv> [--only id,id] [--state-gb <GB>]}.
 *
 * @param plan       the plan of {@code --mode}
 * @param out        the result file
 * @param scenarios  the scenarios to run (by default {@link Scenario#defaults(Plan)}: in full mode all but the
 *                   explicit-only ones, in smoke mode all)
 * @param largeState the plan of {@link Scenario#LARGE_STATE}: {@code --mode}'s, with the state size of
 *                   {@code --state-gb} if given
 */
public record HarnessArgs(Plan plan, Path out, Set<Scenario> scenarios, LargeStatePlan largeState) {

    public static HarnessArgs parse(String[] args) {
        Plan plan = Plan.full();
        Path out = null;
        Set<Scenario> only = null;
        Double stateGb = null;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--mode" -> plan = Plan.of(value(args, ++i, "--mode"));
                case "--out" -> out = Path.of(value(args, ++i, "--out"));
                case "--only" -> {
                    only = EnumSet.noneOf(Scenario.class);
                    for (String id : value(args, ++i, "--only").split(",")) {
                        only.add(Scenario.byId(id.trim()).orElseThrow(() -> new IllegalArgumentException(
                                "Unknown scenario '" + id + "'; known: " + Arrays.stream(Scenario.values())
                                        .map(Scenario::id).toList())));
                    }
                }
                case "--state-gb" -> stateGb = LargeStatePlan.parseGb(value(args, ++i, "--state-gb"));
                default -> throw new IllegalArgumentException("Unknown option " + args[i]
                        + "; usage: --mode full|smoke --out <file.tsv> [--only scenario,...] [--state-gb <GB>]");
            }
        }
        if (out == null) {
            throw new IllegalArgumentException("--out <file.tsv> is required");
        }
        if (only == null) {
            only = Scenario.defaults(plan);
        }
        LargeStatePlan large = stateGb == null ? LargeStatePlan.of(plan.mode()) : LargeStatePlan.of(plan.mode(), stateGb);
        return new HarnessArgs(plan, out, only, large);
    }

    private static String value(String[] args, int i, String option) {
        if (i >= args.length) {
            throw new IllegalArgumentException(option + " needs a value");
        }
        return args[i];
    }
}
