package io.sluice.compare;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.Set;

/**
 * Command line of every harness: {@code --mode full|smoke --out <file.tsv> [--only id,id]}.
 *
 * @param plan      the plan of {@code --mode}
 * @param out       the result file
 * @param scenarios the scenarios to run (all by default)
 */
public record HarnessArgs(Plan plan, Path out, Set<Scenario> scenarios) {

    public static HarnessArgs parse(String[] args) {
        Plan plan = Plan.full();
        Path out = null;
        Set<Scenario> only = EnumSet.allOf(Scenario.class);
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
                default -> throw new IllegalArgumentException("Unknown option " + args[i]
                        + "; usage: --mode full|smoke --out <file.tsv> [--only scenario,...]");
            }
        }
        if (out == null) {
            throw new IllegalArgumentException("--out <file.tsv> is required");
        }
        return new HarnessArgs(plan, out, only);
    }

    private static String value(String[] args, int i, String option) {
        if (i >= args.length) {
            throw new IllegalArgumentException(option + " needs a value");
        }
        return args[i];
    }
}
