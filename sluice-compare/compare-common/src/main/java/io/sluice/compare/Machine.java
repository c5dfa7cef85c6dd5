package io.sluice.compare;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/** What a harness JVM records about where it ran: cores, memory, JVM, options. */
public final class Machine {
    private Machine() {}

    public static Map<String, String> describe() {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("cores", Integer.toString(Runtime.getRuntime().availableProcessors()));
        m.put("memory", totalMemory());
        m.put("cpu", cpuModel());
        m.put("jvm", System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version"));
        m.put("max-heap-mib", Long.toString(Runtime.getRuntime().maxMemory() >> 20));
        m.put("jvm-options", String.join(" ", ManagementFactory.getRuntimeMXBean().getInputArguments()));
        m.put("os", System.getProperty("os.name") + " " + System.getProperty("os.version") + " "
                + System.getProperty("os.arch"));
        return m;
    }

    /** Adds {@link #describe()} and the plan to a result file's header. */
    public static void record(Results results, Plan plan) {
        describe().forEach(results::header);
        results.header("plan", plan.describe());
        results.header("started", java.time.Instant.now().toString());
    }

    private static String totalMemory() {
        return procLine(Path.of("/proc/meminfo"), "MemTotal:");
    }

    private static String cpuModel() {
        return procLine(Path.of("/proc/cpuinfo"), "model name");
    }

    private static String procLine(Path file, String prefix) {
        try {
            return Files.readAllLines(file).stream().filter(l -> l.startsWith(prefix))
                    .map(l -> l.substring(l.indexOf(':') + 1).trim()).findFirst().orElse("unknown");
        } catch (IOException | RuntimeException e) {
            return "unknown";
        }
    }
}
