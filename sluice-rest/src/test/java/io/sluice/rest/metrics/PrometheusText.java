package io.sluice.rest.metrics;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** A parsed Prometheus text-format scrape: the metric families and their samples. For tests. */
record PrometheusText(Set<String> families, List<Sample> samples) {
    private static final Pattern TYPE = Pattern.compile("^# TYPE (\\S+) \\S+$");
    private static final Pattern SAMPLE = Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\\{(.*)})? (\\S+)(?: \\d+)?$");
    private static final Pattern LABEL = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"((?:[^\"\\\\]|\\\\.)*)\"");

    record Sample(String name, Map<String, String> labels, double value) {
    }

    static PrometheusText parse(String text) {
        Set<String> families = new LinkedHashSet<>();
        List<Sample> samples = new ArrayList<>();
        for (String line : text.split("\n")) {
            Matcher t = TYPE.matcher(line);
            if (t.matches()) {
                families.add(t.group(1));
                continue;
            }
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            Matcher s = SAMPLE.matcher(line);
            if (!s.matches()) {
                throw new IllegalArgumentException("Not a Prometheus sample line: " + line);
            }
            Map<String, String> labels = new LinkedHashMap<>();
            if (s.group(2) != null) {
                Matcher l = LABEL.matcher(s.group(2));
                while (l.find()) {
                    labels.put(l.group(1), l.group(2));
                }
            }
            samples.add(new Sample(s.group(1), labels, Double.parseDouble(s.group(3))));
        }
        return new PrometheusText(families, samples);
    }

    /** The samples named {@code name} whose labels include all of {@code labels} (pairs: key, value, ...). */
    List<Sample> find(String name, String... labels) {
        return samples.stream().filter(s -> s.name().equals(name)).filter(s -> {
            for (int i = 0; i < labels.length; i += 2) {
                if (!labels[i + 1].equals(s.labels().get(labels[i]))) {
                    return false;
                }
            }
            return true;
        }).toList();
    }

    double sum(String name, String... labels) {
        return find(name, labels).stream().mapToDouble(Sample::value).sum();
    }
}
