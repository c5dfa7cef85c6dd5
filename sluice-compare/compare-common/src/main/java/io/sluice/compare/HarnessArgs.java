package io.sluice.compare;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.Collections;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * Command line of every harness: {@code --mode full|smoke --out <file.tsv> [--only id,id] [--state-gb <GB>]
 * [--steady-rate <records/s>] [--task-failovers <n>] [--large-state-storage local|s3] [--large-state-set key=value]...}.
 *
 * @param plan       the plan of {@code --mode}
 * @param out        the result file
 * @param scenarios  the scenarios to run (by default {@link Scenario#defaults(Plan)}: in full mode all but the
 *                   explicit-only ones, in smoke mode all)
 * @param largeState the plan of {@link Scenario#LARGE_STATE}: {@code --mode}'s, with the state size of
 *                   {@code --state-gb} if given, the steady rate of {@code --steady-rate} if given and the number of
 *                   task failovers of {@code --task-failovers} if given
 * @param largeStateStorage where {@link Scenario#LARGE_STATE} keeps its checkpoints and savepoints: local disk (the
 *                   default, every system) or S3 (an S3-compatible server in the harness; only the Sluice harness
 *                   supports it)
 * @param largeStateSettings cluster settings of {@link Scenario#LARGE_STATE} over the harness's own, in order
 *                   ({@code --large-state-set key=value}, repeatable; a later one wins): to measure another
 *                   setting without a build of its own. Only the Sluice harness supports them; empty by default
 */
public record HarnessArgs(Plan plan, Path out, Set<Scenario> scenarios, LargeStatePlan largeState,
                          Storage largeStateStorage, Map<String, String> largeStateSettings) {

    public HarnessArgs {
        largeStateSettings = Collections.unmodifiableMap(new LinkedHashMap<>(largeStateSettings));
    }

    /** Where the large-state scenario's checkpoints and savepoints go. */
    public enum Storage {
        LOCAL, S3;

        static Storage parse(String value) {
            return switch (value) {
                case "local" -> LOCAL;
                case "s3" -> S3;
                default -> throw new IllegalArgumentException("--large-state-storage takes local or s3, not '" + value
                        + "'");
            };
        }
    }

    private static final String USAGE = "usage: --mode full|smoke --out <file.tsv> [--only scenario,...]"
            + " [--state-gb <GB>] [--steady-rate <records/s>] [--task-failovers <n>] [--large-state-storage local|s3]"
            + " [--large-state-set key=value]...";

    public static HarnessArgs parse(String[] args) {
        Plan plan = Plan.full();
        Path out = null;
        Set<Scenario> only = null;
        Double stateGb = null;
        Double steadyRate = null;
        Integer failovers = null;
        Storage storage = Storage.LOCAL;
        Map<String, String> settings = new LinkedHashMap<>();
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
                case "--steady-rate" -> steadyRate = LargeStatePlan.parseSteadyRate(value(args, ++i, "--steady-rate"));
                case "--task-failovers" -> failovers = LargeStatePlan.parseFailovers(value(args, ++i, "--task-failovers"));
                case "--large-state-storage" -> storage = Storage.parse(value(args, ++i, "--large-state-storage"));
                case "--large-state-set" -> {
                    String setting = value(args, ++i, "--large-state-set");
                    int eq = setting.indexOf('=');
                    if (eq <= 0 || setting.substring(0, eq).isBlank()) {
                        throw new IllegalArgumentException("--large-state-set takes key=value (e.g."
                                + " state.backend.rocksdb.compaction.level0-files=20), not '" + setting + "'");
                    }
                    settings.put(setting.substring(0, eq).trim(), setting.substring(eq + 1).trim());
                }
                default -> throw new IllegalArgumentException("Unknown option " + args[i] + "; " + USAGE);
            }
        }
        if (out == null) {
            throw new IllegalArgumentException("--out <file.tsv> is required");
        }
        if (only == null) {
            only = Scenario.defaults(plan);
        }
        LargeStatePlan large = stateGb == null ? LargeStatePlan.of(plan.mode()) : LargeStatePlan.of(plan.mode(), stateGb);
        if (steadyRate != null) {
            large = large.withSteadyRate(steadyRate);
        }
        if (failovers != null) {
            large = large.withFailovers(failovers);
        }
        return new HarnessArgs(plan, out, only, large, storage, settings);
    }

    private static String value(String[] args, int i, String option) {
        if (i >= args.length) {
            throw new IllegalArgumentException(option + " needs a value");
        }
        return args[i];
    }
}
