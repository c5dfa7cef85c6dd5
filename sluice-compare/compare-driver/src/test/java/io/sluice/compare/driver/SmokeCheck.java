package io.sluice.compare.driver;

import io.sluice.compare.Scenario;
import io.sluice.compare.Scenario.Metric;
import io.sluice.compare.driver.Comparison.Key;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * What the smoke comparison must show, as a list of problems (empty: passed): every system has rows
 * for every scenario, and every figure Sluice reports is reported by every other system with a
 * finite value. An {@linkplain Scenario#optional() optional} scenario a system declared not run
 * ({@code Results.notRun}) is exempt for that system, and only for it.
 *
 * <p>NaN rule: a latency percentile ({@code p50_ms}, {@code p99_ms}, {@code max_ms},
 * {@code status_p99_ms}, {@code status_max_ms}) may be NaN when the system answered no status query in
 * that variant, i.e. its {@code queries} figure there is 0 (or the variant has no {@code queries}
 * figure, as in jm-failover). Such a NaN reads "n/a" in the report and counts as Sluice being behind.
 * Every other figure must be finite for every system, Sluice included.
 */
final class SmokeCheck {
    private SmokeCheck() {}

    static final Set<String> MAY_BE_NAN = Set.of(Metric.P50_MS, Metric.P99_MS, Metric.MAX_MS, Metric.STATUS_P99_MS,
            Metric.STATUS_MAX_MS);

    static List<String> problems(Comparison c) {
        List<String> problems = new ArrayList<>();
        for (String system : c.systems()) {
            if (!c.hasFile(system)) {
                problems.add(system + ": no result file");
            }
        }
        for (Scenario sc : Scenario.values()) {
            for (String system : c.systems()) {
                boolean any = c.keys(sc.id()).stream().anyMatch(k -> c.value(k, system) != null);
                boolean declaredNotRun = sc.optional() && c.notRun(system, sc.id()).isPresent();
                if (!any && !declaredNotRun) {
                    problems.add(system + ": no rows for scenario " + sc.id());
                }
            }
        }
        for (Key k : c.keys()) {
            if (c.value(k, SystemUnderTest.REFERENCE) == null) {
                continue;
            }
            for (String system : c.systems()) {
                Double v = c.value(k, system);
                if (v == null && c.notRun(k, system)) {
                    continue;
                }
                if (v == null) {
                    problems.add(system + ": missing " + Comparison.describe(k) + " (Sluice reports it)");
                } else if (!Double.isFinite(v) && !nanAllowed(c, k, system, v)) {
                    problems.add(system + ": " + Comparison.describe(k) + " is " + v + (Double.isNaN(v)
                            && MAY_BE_NAN.contains(k.metric()) ? " although it answered queries in that variant" : ""));
                }
            }
        }
        return problems;
    }

    private static boolean nanAllowed(Comparison c, Key k, String system, double v) {
        if (!Double.isNaN(v) || !MAY_BE_NAN.contains(k.metric())) {
            return false;
        }
        Double queries = c.value(new Key(k.scenario(), k.variant(), Metric.QUERIES), system);
        return queries == null || queries == 0;
    }
}
