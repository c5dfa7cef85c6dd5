package io.sluice.chaos;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What the tasks of each chaos job saw: per deployment (the runtime's JVM-unique number of a
 * deployment round) the first and last time one of its tasks processed a record. Functions are
 * serialized into the job graph, so they reach this through a static registry keyed by a tag.
 * Thread-safe.
 */
final class DeploymentLog {
    private static final Map<String, Map<Integer, Span>> REGISTRY = new ConcurrentHashMap<>();

    /** When a deployment's tasks were seen processing records. */
    static final class Span {
        final int deployment;
        final long firstNanos;
        final long firstWallMillis;
        volatile long lastNanos;

        Span(int deployment, long now, long wallMillis) {
            this.deployment = deployment;
            this.firstNanos = now;
            this.firstWallMillis = wallMillis;
            this.lastNanos = now;
        }

        @Override
        public String toString() {
            return "deployment " + deployment + " [" + firstNanos / 1_000_000 + " ms, " + lastNanos / 1_000_000 + " ms]";
        }
    }

    private DeploymentLog() {}

    static void open(String tag) {
        REGISTRY.put(tag, new ConcurrentHashMap<>());
    }

    static void release(String tag) {
        REGISTRY.remove(tag);
    }

    /** Called by a task for every record it processes. */
    static void seen(String tag, int deployment) {
        Map<Integer, Span> spans = REGISTRY.get(tag);
        if (spans == null) {
            return;
        }
        long now = System.nanoTime();
        Span span = spans.computeIfAbsent(deployment, d -> new Span(d, now, System.currentTimeMillis()));
        if (now > span.lastNanos) {
            span.lastNanos = now;
        }
    }

    /** The spans of {@code tag}'s deployments, by first record. */
    static List<Span> spans(String tag) {
        Map<Integer, Span> spans = REGISTRY.get(tag);
        List<Span> out = spans == null ? new ArrayList<>() : new ArrayList<>(spans.values());
        out.sort(Comparator.comparingLong(s -> s.firstNanos));
        return out;
    }

    /**
     * The deployment number of the calling task thread. {@code Task} names its thread
     * {@code sluice-task-<task name>@<deployment>}; the chaos suite reads it from there so that the
     * runtime needs no test hook.
     */
    static int currentDeployment() {
        String name = Thread.currentThread().getName();
        int at = name.lastIndexOf('@');
        if (!name.startsWith("sluice-task-") || at < 0) {
            throw new IllegalStateException("Not on a task thread (" + name + "); cannot tell the deployment");
        }
        return Integer.parseInt(name.substring(at + 1));
    }
}
