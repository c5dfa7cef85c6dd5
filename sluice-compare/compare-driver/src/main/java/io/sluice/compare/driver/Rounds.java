package io.sluice.compare.driver;

import io.sluice.compare.Results;
import io.sluice.compare.Scenario;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Repeated runs ({@code --rounds n}): the order of the systems in each round, the median of a system's
 * result files over the rounds, and the table of every round's figures.
 *
 * <p>Why: on a shared 2-core machine one run per system measures the machine as much as the systems
 * (records/s of one system moved by up to 1.8x between runs of the Kafka scenario). Several rounds with
 * the order rotated, so that no system always runs first or right after the same neighbour, and the
 * median of each figure, give a comparison that one noisy run cannot turn around; the table keeps every
 * round's figure visible next to it.
 *
 * <p>Threading: pure functions, any thread.
 */
final class Rounds {
    /** The header of a median result file that says what its figures are. */
    static final String HEADER = "rounds";

    private Rounds() {}

    /** The systems in the order of round {@code round} (1-based): the list rotated left by {@code round - 1}. */
    static <T> List<T> order(List<T> systems, int round) {
        if (round < 1) {
            throw new IllegalArgumentException("rounds count from 1, not " + round);
        }
        List<T> order = new ArrayList<>(systems);
        if (!order.isEmpty()) {
            java.util.Collections.rotate(order, -((round - 1) % order.size()));
        }
        return List.copyOf(order);
    }

    /** The median of {@code values}: the middle one, or the mean of the two middle ones; NaN values count as NaN. */
    static double median(List<Double> values) {
        if (values.isEmpty()) {
            throw new IllegalArgumentException("no values");
        }
        double[] v = values.stream().mapToDouble(Double::doubleValue).toArray();
        if (Arrays.stream(v).anyMatch(Double::isNaN)) {
            return Double.NaN;
        }
        Arrays.sort(v);
        int n = v.length;
        return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
    }

    /**
     * One system's result file made of the medians of its rounds' files: the headers of the first round
     * plus {@link #HEADER}; one row per figure that every round has, in the first round's order. A figure
     * missing from some round is left out (so the report shows it missing rather than a median of fewer runs).
     */
    static Results medianOf(String system, List<Results.Parsed> rounds) {
        if (rounds.isEmpty()) {
            throw new IllegalArgumentException("no rounds for " + system);
        }
        Results out = new Results(system);
        rounds.get(0).headers().forEach((k, v) -> {
            if (!k.equals("system")) {
                out.header(k, v);
            }
        });
        out.header(HEADER, rounds.size() + " rounds, the systems' order rotated each round; every figure is the"
                + " median of the rounds' figures (each round's file in round-<k>/)");
        for (Map.Entry<Comparison.Key, List<Double>> e : valuesByKey(rounds).entrySet()) {
            if (e.getValue().size() != rounds.size()) {
                continue;
            }
            Comparison.Key k = e.getKey();
            Scenario scenario = Scenario.byId(k.scenario()).orElseThrow(() -> new IllegalArgumentException(
                    "unknown scenario '" + k.scenario() + "' in a result file of " + system));
            out.add(scenario, k.variant(), k.metric(), median(e.getValue()));
        }
        return out;
    }

    /** Every figure of the files, in first-seen order, with its values in round order. */
    static Map<Comparison.Key, List<Double>> valuesByKey(List<Results.Parsed> rounds) {
        Map<Comparison.Key, List<Double>> values = new LinkedHashMap<>();
        for (Results.Parsed p : rounds) {
            for (Results.Row r : p.rows()) {
                values.computeIfAbsent(new Comparison.Key(r.scenario(), r.variant(), r.metric()),
                        k -> new ArrayList<>()).add(r.value());
            }
        }
        return values;
    }

    /**
     * A Markdown table of every round's figure per system: one row per figure, one column per system,
     * "median (round 1 / round 2 / ...)"; a system without a file for a round shows "missing" there.
     *
     * @param perSystem each system's result files by round (null for a round without a readable file)
     */
    static String table(List<String> systems, Map<String, List<Results.Parsed>> perSystem, int rounds) {
        Map<Comparison.Key, Boolean> keys = new LinkedHashMap<>();
        for (String s : systems) {
            for (Results.Parsed p : perSystem.getOrDefault(s, List.of())) {
                if (p != null) {
                    p.rows().forEach(r -> keys.put(new Comparison.Key(r.scenario(), r.variant(), r.metric()), true));
                }
            }
        }
        StringBuilder sb = new StringBuilder();
        sb.append("# Every round's figures\n\n").append(rounds).append(" rounds; each cell: the median, then the")
                .append(" figure of round 1 / round 2 / ...\n\n| scenario | variant | metric |");
        systems.forEach(s -> sb.append(' ').append(s).append(" |"));
        sb.append("\n| --- | --- | --- |");
        systems.forEach(s -> sb.append(" ---: |"));
        sb.append('\n');
        for (Comparison.Key k : keys.keySet()) {
            sb.append("| ").append(k.scenario()).append(" | ").append(k.variant()).append(" | ").append(k.metric())
                    .append(" |");
            for (String s : systems) {
                List<Results.Parsed> files = perSystem.getOrDefault(s, List.of());
                List<String> cells = new ArrayList<>();
                List<Double> present = new ArrayList<>();
                for (int i = 0; i < rounds; i++) {
                    Double v = i < files.size() && files.get(i) != null ? value(files.get(i), k) : null;
                    cells.add(Format.value(v));
                    if (v != null) {
                        present.add(v);
                    }
                }
                String median = present.size() == rounds ? Format.value(median(present)) : Format.MISSING;
                sb.append(' ').append(median).append(" (").append(String.join(" / ", cells)).append(") |");
            }
            sb.append('\n');
        }
        return sb.toString();
    }

    private static Double value(Results.Parsed p, Comparison.Key k) {
        for (Results.Row r : p.rows()) {
            if (r.scenario().equals(k.scenario()) && r.variant().equals(k.variant()) && r.metric().equals(k.metric())) {
                return r.value();
            }
        }
        return null;
    }
}
