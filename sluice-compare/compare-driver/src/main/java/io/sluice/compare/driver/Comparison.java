package io.sluice.compare.driver;

import io.sluice.compare.Results;
import io.sluice.compare.Scenario;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The result files of one run merged: for each (scenario, variant, metric) the value of each system.
 * Order is deterministic and follows the input: scenarios in {@link Scenario} order (unknown ids
 * after them, as first seen), variants within a scenario as first seen, metrics within a variant as
 * first seen, looking at the systems in the order given (Sluice first). Immutable.
 */
public final class Comparison {
    /** One figure's identity. */
    public record Key(String scenario, String variant, String metric) {
    }

    private final List<String> systems;
    private final Map<String, Map<String, String>> headers;
    private final Map<Key, Map<String, Double>> values;
    private final List<String> warnings;

    private Comparison(List<String> systems, Map<String, Map<String, String>> headers,
                       Map<Key, Map<String, Double>> values, List<String> warnings) {
        this.systems = List.copyOf(systems);
        this.headers = headers;
        this.values = values;
        this.warnings = List.copyOf(warnings);
    }

    /**
     * Merges result files.
     *
     * @param systems every system of the run, in report order (a system without a file has no values)
     * @param files   the parsed file of each system that has one
     */
    public static Comparison of(List<String> systems, Map<String, Results.Parsed> files) {
        List<String> warnings = new ArrayList<>();
        Map<String, Map<String, String>> headers = new LinkedHashMap<>();
        Map<Key, Map<String, Double>> raw = new LinkedHashMap<>();
        for (String system : systems) {
            Results.Parsed parsed = files.get(system);
            if (parsed == null) {
                continue;
            }
            headers.put(system, Collections.unmodifiableMap(new LinkedHashMap<>(parsed.headers())));
            String declared = parsed.headers().get("system");
            if (declared != null && !declared.equals(system)) {
                warnings.add("the result file of " + system + " says system '" + declared + "'");
            }
            Set<String> wrongSystemColumn = new LinkedHashSet<>();
            for (Results.Row row : parsed.rows()) {
                if (!row.system().equals(system)) {
                    wrongSystemColumn.add(row.system());
                }
                Key key = new Key(row.scenario(), row.variant(), row.metric());
                Double previous = raw.computeIfAbsent(key, k -> new LinkedHashMap<>()).put(system, row.value());
                if (previous != null) {
                    warnings.add(system + " reports " + describe(key) + " more than once; the last value is used");
                }
            }
            if (!wrongSystemColumn.isEmpty()) {
                warnings.add("the result file of " + system + " has rows for system " + wrongSystemColumn
                        + "; they are counted as " + system);
            }
        }
        return new Comparison(systems, Collections.unmodifiableMap(headers), ordered(raw), warnings);
    }

    private static Map<Key, Map<String, Double>> ordered(Map<Key, Map<String, Double>> raw) {
        List<String> scenarioOrder = new ArrayList<>();
        for (Scenario s : Scenario.values()) {
            scenarioOrder.add(s.id());
        }
        Map<String, Integer> variantOrder = new HashMap<>();
        Map<Key, Integer> keyOrder = new HashMap<>();
        for (Key k : raw.keySet()) {
            if (!scenarioOrder.contains(k.scenario())) {
                scenarioOrder.add(k.scenario());
            }
            variantOrder.putIfAbsent(k.scenario() + '\t' + k.variant(), variantOrder.size());
            keyOrder.put(k, keyOrder.size());
        }
        List<Key> keys = new ArrayList<>(raw.keySet());
        keys.sort(Comparator.<Key>comparingInt(k -> scenarioOrder.indexOf(k.scenario()))
                .thenComparingInt(k -> variantOrder.get(k.scenario() + '\t' + k.variant()))
                .thenComparingInt(keyOrder::get));
        Map<Key, Map<String, Double>> out = new LinkedHashMap<>();
        for (Key k : keys) {
            out.put(k, Collections.unmodifiableMap(raw.get(k)));
        }
        return Collections.unmodifiableMap(out);
    }

    /** Every system of the run, in report order. */
    public List<String> systems() {
        return systems;
    }

    /** The systems other than {@link SystemUnderTest#REFERENCE}, in report order. */
    public List<String> others() {
        return systems.stream().filter(s -> !s.equals(SystemUnderTest.REFERENCE)).toList();
    }

    /** Whether {@code system} has a result file. */
    public boolean hasFile(String system) {
        return headers.containsKey(system);
    }

    /** The header lines of {@code system}'s file (empty without a file). */
    public Map<String, String> headers(String system) {
        return headers.getOrDefault(system, Map.of());
    }

    /** Rows in {@code system}'s file. */
    public int rowCount(String system) {
        return (int) values.values().stream().filter(m -> m.containsKey(system)).count();
    }

    /** Scenario ids that have at least one row, in report order. */
    public List<String> scenarios() {
        return values.keySet().stream().map(Key::scenario).distinct().toList();
    }

    /** Every figure, in report order. */
    public List<Key> keys() {
        return List.copyOf(values.keySet());
    }

    public List<Key> keys(String scenario) {
        return values.keySet().stream().filter(k -> k.scenario().equals(scenario)).toList();
    }

    /** {@code system}'s value of {@code key}: null if it has none (NaN if it reported NaN). */
    public Double value(Key key, String system) {
        Map<String, Double> m = values.get(key);
        return m == null ? null : m.get(system);
    }

    /**
     * The reason {@code system}'s result file gives for not running {@code scenario}, an optional
     * scenario ({@link Results#notRun}); empty if it gives none.
     */
    public Optional<String> notRun(String system, String scenario) {
        return Optional.ofNullable(Results.notRunReason(headers(system), scenario));
    }

    /** Whether {@code system} has no value for {@code key} because it declared the scenario not run. */
    public boolean notRun(Key key, String system) {
        return value(key, system) == null && notRun(system, key.scenario()).isPresent();
    }

    /** Problems noticed while merging (duplicate rows, mismatched system names), in input order. */
    public List<String> warnings() {
        return warnings;
    }

    /** A scenario's title from {@link Scenario}, or its id if unknown. */
    public static String title(String scenarioId) {
        return Scenario.byId(scenarioId).map(Scenario::title).orElse(scenarioId);
    }

    /** "Task failover, N=1, D=0 ms, to_running_ms". */
    public static String describe(Key key) {
        return title(key.scenario()) + ", " + key.variant() + ", " + key.metric();
    }

    /** The first non-empty value of header {@code name}, preferring the reference system's file. */
    public Optional<String> header(String name) {
        List<String> order = new ArrayList<>();
        order.add(SystemUnderTest.REFERENCE);
        order.addAll(systems);
        return order.stream().map(s -> headers(s).get(name)).filter(v -> v != null && !v.isBlank()).findFirst();
    }

    /** Header {@code name} per system with a file, if not every system with a file has the same value. */
    public Optional<Map<String, String>> headerDiffers(String name) {
        Map<String, String> bySystem = new LinkedHashMap<>();
        for (String s : systems) {
            if (hasFile(s)) {
                bySystem.put(s, headers(s).getOrDefault(name, "(none)"));
            }
        }
        return bySystem.values().stream().distinct().count() > 1 ? Optional.of(bySystem) : Optional.empty();
    }
}
