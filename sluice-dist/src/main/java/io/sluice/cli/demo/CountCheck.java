package io.sluice.cli.demo;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * Compares the final count per key with the expected count. Reads the final state per key, not
 * the number of sink records: the sink is at-least-once (it sees replayed records again after a
 * restart), while keyed state is exactly-once.
 */
final class CountCheck {
    static final int MAX_LISTED = 10;

    /** One key whose final count is wrong; {@code null} means the key has no count. */
    record Mismatch(long key, Long expected, Long actual) {
    }

    private final int keys;
    private final long total;
    private final List<Mismatch> mismatches;

    private CountCheck(int keys, long total, List<Mismatch> mismatches) {
        this.keys = keys;
        this.total = total;
        this.mismatches = List.copyOf(mismatches);
    }

    static CountCheck compare(Map<Long, Long> expected, Map<Long, Long> actual) {
        TreeSet<Long> allKeys = new TreeSet<>(expected.keySet());
        allKeys.addAll(actual.keySet());
        List<Mismatch> wrong = new ArrayList<>();
        for (long key : allKeys) {
            Long want = expected.get(key);
            Long got = actual.get(key);
            if (want == null || !want.equals(got)) {
                wrong.add(new Mismatch(key, want, got));
            }
        }
        long total = actual.values().stream().mapToLong(Long::longValue).sum();
        return new CountCheck(expected.size(), total, wrong);
    }

    boolean passed() {
        return mismatches.isEmpty();
    }

    List<Mismatch> mismatches() {
        return mismatches;
    }

    void print(PrintWriter out) {
        if (passed()) {
            out.printf("All %d keys have exactly the expected count (total %d records): exactly-once state verified.%n",
                    keys, total);
            return;
        }
        out.printf("%d of %d keys have a wrong final count:%n", mismatches.size(), keys);
        for (Mismatch m : mismatches.subList(0, Math.min(MAX_LISTED, mismatches.size()))) {
            out.printf("  key %d: expected %s, actual %s%n", m.key(), orNone(m.expected()), orNone(m.actual()));
        }
        if (mismatches.size() > MAX_LISTED) {
            out.printf("  ... and %d more%n", mismatches.size() - MAX_LISTED);
        }
    }

    private static String orNone(Long count) {
        return count == null ? "no count" : count.toString();
    }
}
