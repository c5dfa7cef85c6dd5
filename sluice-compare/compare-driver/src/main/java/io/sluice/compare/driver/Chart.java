package io.sluice.compare.driver;

import io.sluice.compare.Scenario;
import io.sluice.compare.Scenario.Metric;
import io.sluice.compare.driver.Comparison.Key;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The headline ratios as an SVG: one group of horizontal bars per headline figure (status p99 in
 * each status variant, task- and job-manager-failover time to RUNNING for each (N, D), throughput,
 * checkpoint duration p50), one bar per Flink version showing Sluice ÷ that version on a log axis
 * from 0.001x to 1000x. Each group shades the half of the axis where Sluice is better. Hand-written
 * XML with fixed number formatting, so the same results give the same file.
 */
public final class Chart {
    private Chart() {}

    /** The headline figures: a scenario's metric, for every variant it has. */
    private record Headline(Scenario scenario, String metric, String label) {
    }

    private static final List<Headline> HEADLINES = List.of(
            new Headline(Scenario.STATUS_DURING_STALL, Metric.P99_MS, "Status query p99"),
            new Headline(Scenario.TASK_FAILOVER, Metric.TO_RUNNING_MS, "Task failover, time to RUNNING"),
            new Headline(Scenario.JM_FAILOVER, Metric.TO_RUNNING_MS, "Job-manager failover, time to RUNNING"),
            new Headline(Scenario.THROUGHPUT, Metric.RECORDS_PER_S, "Throughput, records/s"),
            new Headline(Scenario.CHECKPOINT_DURATION, Metric.DURATION_P50_MS, "Checkpoint duration p50"),
            new Headline(Scenario.WINDOW_TUMBLING, Metric.RECORDS_PER_S, "Tumbling 1 s window, records/s"),
            new Headline(Scenario.WINDOW_SESSION, Metric.RECORDS_PER_S, "Session window, records/s"));

    /** Bar colours, one per compared system in report order (then repeated). */
    private static final List<String> PALETTE = List.of("#4e79a7", "#f28e2b", "#59a14f", "#b07aa1", "#9c755f");

    private static final int WIDTH = 980;
    private static final double PLOT_LEFT = 420;
    private static final double PLOT_RIGHT = 930;
    private static final int MIN_DECADE = -3;
    private static final int MAX_DECADE = 3;
    private static final int BAR = 14;
    private static final int BAR_GAP = 4;
    private static final int LINE = 15;
    private static final int GROUP_GAP = 14;
    private static final int WRAP = 58;

    /** The figures the chart shows, in order (headline order, then variants as in the report). */
    public static List<Key> headlineKeys(Comparison c) {
        List<Key> keys = new ArrayList<>();
        for (Headline h : HEADLINES) {
            for (Key k : c.keys(h.scenario().id())) {
                if (k.metric().equals(h.metric())) {
                    keys.add(k);
                }
            }
        }
        return keys;
    }

    public static String svg(Comparison c) {
        List<String> others = c.others();
        List<Key> keys = headlineKeys(c);
        StringBuilder body = new StringBuilder();
        double y = 138;
        double plotTop = y - 10;
        for (Key k : keys) {
            y = group(body, c, others, k, y);
        }
        if (keys.isEmpty()) {
            text(body, PLOT_LEFT, y + 20, "start", 13, "#555", "No headline figures in these results.");
            y += 40;
        }
        double plotBottom = y - GROUP_GAP / 2.0;
        double height = plotBottom + 34;

        StringBuilder svg = new StringBuilder();
        svg.append("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
        svg.append("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"").append(WIDTH).append("\" height=\"")
                .append(n(height)).append("\" viewBox=\"0 0 ").append(WIDTH).append(' ').append(n(height))
                .append("\" font-family=\"DejaVu Sans, Arial, Helvetica, sans-serif\">\n");
        svg.append("<rect x=\"0\" y=\"0\" width=\"").append(WIDTH).append("\" height=\"").append(n(height))
                .append("\" fill=\"#ffffff\"/>\n");
        text(svg, 16, 26, "start", 16, "#222", "Sluice ÷ Apache Flink (log scale): headline figures");
        legend(svg, others);
        axis(svg, plotTop, plotBottom);
        svg.append(body);
        svg.append("</svg>\n");
        return svg.toString();
    }

    private static void legend(StringBuilder svg, List<String> others) {
        double x = 16;
        for (int i = 0; i < others.size(); i++) {
            svg.append("<rect x=\"").append(n(x)).append("\" y=\"40\" width=\"12\" height=\"12\" fill=\"")
                    .append(color(i)).append("\"/>\n");
            String label = "Sluice ÷ " + others.get(i);
            text(svg, x + 17, 50, "start", 12, "#222", label);
            x += 17 + label.length() * 7.2 + 18;
        }
        svg.append("<rect x=\"").append(n(x)).append("\" y=\"40\" width=\"12\" height=\"12\" fill=\"#e3f2df\""
                + " stroke=\"#9cc994\"/>\n");
        text(svg, x + 17, 50, "start", 12, "#222", "side where Sluice is better");
        text(svg, 16, 70, "start", 12, "#444", "Left of 1x: Sluice's value is lower (better for times);"
                + " right of 1x: higher (better for throughput).");
        text(svg, 16, 70 + 16, "start", 12, "#444", "Each group says which is better; a ratio in red marks"
                + " where Sluice is behind that Flink version by more than 10%.");
    }

    private static void axis(StringBuilder svg, double top, double bottom) {
        text(svg, PLOT_LEFT, 106, "start", 11, "#2e7d32", "◀ Sluice lower");
        text(svg, PLOT_RIGHT, 106, "end", 11, "#2e7d32", "Sluice higher ▶");
        for (int d = MIN_DECADE; d <= MAX_DECADE; d++) {
            double x = x(Math.pow(10, d));
            boolean one = d == 0;
            svg.append("<line x1=\"").append(n(x)).append("\" y1=\"").append(n(top)).append("\" x2=\"").append(n(x))
                    .append("\" y2=\"").append(n(bottom)).append("\" stroke=\"").append(one ? "#222" : "#d0d0d0")
                    .append("\" stroke-width=\"").append(one ? "1.5" : "1").append("\"/>\n");
            String label = tick(d);
            String anchor = d == MIN_DECADE ? "start" : d == MAX_DECADE ? "end" : "middle";
            text(svg, x, top - 3, anchor, 11, one ? "#222" : "#555", label);
            text(svg, x, bottom + 16, anchor, 11, one ? "#222" : "#555", label);
        }
    }

    private static double group(StringBuilder svg, Comparison c, List<String> others, Key k, double y) {
        Direction d = Direction.of(k.metric());
        List<String> lines = new ArrayList<>();
        lines.add(headlineLabel(k));
        lines.addAll(wrap(k.variant(), WRAP));
        double barsHeight = Math.max(1, others.size()) * (BAR + BAR_GAP) - BAR_GAP;
        double labelHeight = (lines.size() + 1) * LINE;
        double h = Math.max(barsHeight, labelHeight);

        // the half of the axis where Sluice is better
        double mid = x(1);
        if (d != Direction.NEUTRAL) {
            double from = d == Direction.LOWER ? PLOT_LEFT : mid;
            double to = d == Direction.LOWER ? mid : PLOT_RIGHT;
            svg.append("<rect x=\"").append(n(from)).append("\" y=\"").append(n(y - 4)).append("\" width=\"")
                    .append(n(to - from)).append("\" height=\"").append(n(h + 8)).append("\" fill=\"#e3f2df\"/>\n");
        }
        double ty = y + 11;
        for (int i = 0; i < lines.size(); i++) {
            text(svg, 16, ty, "start", 12, "#222", lines.get(i), i == 0 ? "bold" : null);
            ty += LINE;
        }
        text(svg, 16, ty, "start", 11, "#2e7d32", d == Direction.NEUTRAL ? "no better direction"
                : d.label() + " is better");

        double by = y + (h - barsHeight) / 2;
        for (int i = 0; i < others.size(); i++) {
            Double s = c.value(k, SystemUnderTest.REFERENCE);
            Double f = c.value(k, others.get(i));
            String label = Format.ratio(s, f);
            double textY = by + BAR - 3;
            if (s != null && f != null && !s.isNaN() && !f.isNaN() && f != 0) {
                double r = s / f;
                double end = x(r);
                double left = Math.min(end, mid);
                double width = Math.max(1, Math.abs(end - mid));
                svg.append("<rect x=\"").append(n(left)).append("\" y=\"").append(n(by)).append("\" width=\"")
                        .append(n(width)).append("\" height=\"").append(BAR).append("\" fill=\"").append(color(i))
                        .append("\"><title>").append(esc(others.get(i) + ": " + label)).append("</title></rect>\n");
                // the ratio on the other side of the 1x line, so it never runs into the labels or off the plot
                boolean leftOfOne = r < 1;
                boolean behind = d.behind(s, f);
                text(svg, leftOfOne ? mid + 5 : mid - 5, textY, leftOfOne ? "start" : "end", 11,
                        behind ? "#c62828" : "#222", behind ? label + " (Sluice behind)" : label,
                        behind ? "bold" : null);
            } else if (c.notRun(k, others.get(i))) {
                text(svg, mid + 5, textY, "start", 11, "#555", others.get(i) + ": n/a (not run)");
            } else {
                text(svg, mid + 5, textY, "start", 11, "#a00", others.get(i) + ": " + label);
            }
            by += BAR + BAR_GAP;
        }
        return y + h + GROUP_GAP;
    }

    private static String headlineLabel(Key k) {
        for (Headline h : HEADLINES) {
            if (h.scenario().id().equals(k.scenario()) && h.metric().equals(k.metric())) {
                return h.label() + " (" + k.metric() + ")";
            }
        }
        return Comparison.title(k.scenario()) + " (" + k.metric() + ")";
    }

    /** Axis label of 10^decade: "0.001x" … "1x" … "1,000x". */
    static String tick(int decade) {
        return (decade >= 0 ? String.format(Locale.ROOT, "%,d", (long) Math.pow(10, decade))
                : java.math.BigDecimal.ONE.scaleByPowerOfTen(decade).toPlainString()) + "x";
    }

    /** Word-wraps {@code s} to lines of at most {@code width} characters (longer words stay whole). */
    static List<String> wrap(String s, int width) {
        List<String> lines = new ArrayList<>();
        StringBuilder line = new StringBuilder();
        for (String word : s.split(" ")) {
            if (line.length() > 0 && line.length() + 1 + word.length() > width) {
                lines.add(line.toString());
                line.setLength(0);
            }
            if (line.length() > 0) {
                line.append(' ');
            }
            line.append(word);
        }
        if (line.length() > 0) {
            lines.add(line.toString());
        }
        return lines;
    }

    /** x of a ratio on the log axis, clamped to the axis. */
    static double x(double ratio) {
        double lg = ratio <= 0 ? MIN_DECADE : Math.log10(ratio);
        lg = Math.max(MIN_DECADE, Math.min(MAX_DECADE, lg));
        return PLOT_LEFT + (lg - MIN_DECADE) / (MAX_DECADE - MIN_DECADE) * (PLOT_RIGHT - PLOT_LEFT);
    }

    private static String color(int i) {
        return PALETTE.get(i % PALETTE.size());
    }

    private static void text(StringBuilder svg, double x, double y, String anchor, int size, String fill, String s) {
        text(svg, x, y, anchor, size, fill, s, null);
    }

    private static void text(StringBuilder svg, double x, double y, String anchor, int size, String fill, String s,
                             String weight) {
        if (s.isEmpty()) {
            return;
        }
        svg.append("<text x=\"").append(n(x)).append("\" y=\"").append(n(y)).append("\" font-size=\"").append(size)
                .append("\" fill=\"").append(fill).append('"');
        if (!"start".equals(anchor)) {
            svg.append(" text-anchor=\"").append(anchor).append('"');
        }
        if (weight != null) {
            svg.append(" font-weight=\"").append(weight).append('"');
        }
        svg.append('>').append(esc(s)).append("</text>\n");
    }

    private static String n(double v) {
        return String.format(Locale.ROOT, "%.1f", v);
    }

    static String esc(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }
}
