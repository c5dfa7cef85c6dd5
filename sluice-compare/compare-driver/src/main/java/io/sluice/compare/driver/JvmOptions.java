package io.sluice.compare.driver;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The JVM options of every harness JVM, the same for every system: the one place they are defined.
 * Each harness records the options it actually got (header {@code jvm-options}) and the report
 * warns if they differ between systems.
 *
 * <p>{@code -Djdk.net.hosts.file} makes the harness JVM resolve host names from a file the driver
 * writes (see {@link #hostsLines}) instead of the system resolver, so every name a harness may look
 * up on a machine without DNS resolves to the loopback address. A name not in the file does not
 * resolve at all: harnesses use local addresses only.
 */
public final class JvmOptions {
    private JvmOptions() {}

    /** Packages Flink reflects into on Java 17 (each opened to the unnamed module). */
    public static final List<String> OPENED_PACKAGES = List.of("java.base/java.lang", "java.base/java.util",
            "java.base/java.lang.reflect", "java.base/java.io", "java.base/java.nio", "java.base/sun.nio.ch",
            "java.base/java.net", "java.base/java.util.concurrent", "java.base/java.lang.invoke",
            "java.base/java.time", "java.base/java.text", "java.base/java.math");

    /**
     * Flink 1.13/1.14's shaded ZooKeeper 3.4 client looks this literal name up on JDK 14+
     * ({@code InetSocketAddress.toString()} of an unresolved address changed there).
     */
    public static final String UNRESOLVED_LOCALHOST = "localhost/<unresolved>";

    /** Name of the hosts file the driver writes into its output directory. */
    public static final String HOSTS_FILE_NAME = "hosts";

    /** The options, in order, for a harness JVM that resolves names through {@code hostsFile}. */
    public static List<String> forHarness(Path hostsFile) {
        List<String> o = new ArrayList<>();
        o.add("-Xmx2g");
        o.add("-XX:+UseG1GC");
        for (String p : OPENED_PACKAGES) {
            o.add("--add-opens=" + p + "=ALL-UNNAMED");
        }
        o.add("-Dzookeeper.sasl.client=false");
        o.add("-Dzookeeper.admin.enableServer=false");
        o.add("-Djava.net.preferIPv4Stack=true");
        o.add("-Djdk.net.hosts.file=" + hostsFile.toAbsolutePath().normalize());
        return List.copyOf(o);
    }

    /**
     * The options of a smoke run's harness JVM: {@link #forHarness} and {@value #SMOKE_ONLY}, the
     * client compiler only. Smoke runs last seconds and their figures are not compared, so the JIT's
     * optimizing compiler would mostly cost CPU (which five harnesses on two cores, beside the rest of
     * the build, are short of) and never pay it back.
     */
    public static List<String> forSmoke(Path hostsFile) {
        List<String> o = new ArrayList<>(forHarness(hostsFile));
        o.add(SMOKE_ONLY);
        return List.copyOf(o);
    }

    /** The option smoke runs add, after {@link #forHarness}'s. */
    public static final String SMOKE_ONLY = "-XX:TieredStopAtLevel=1";

    /**
     * Lines of the hosts file: {@code localhost}, {@link #UNRESOLVED_LOCALHOST} and each of
     * {@code hostNames} (this machine's names), all on 127.0.0.1, without duplicates.
     */
    public static List<String> hostsLines(List<String> hostNames) {
        Set<String> names = new LinkedHashSet<>();
        names.add("localhost");
        names.add(UNRESOLVED_LOCALHOST);
        for (String n : hostNames) {
            if (n != null && !n.isBlank() && n.strip().chars().noneMatch(Character::isWhitespace)) {
                names.add(n.strip());
            }
        }
        return names.stream().map(n -> "127.0.0.1 " + n).toList();
    }

    /**
     * This machine's host names: {@code InetAddress.getLocalHost().getHostName()} (read through the
     * driver's own resolver, which does not use the hosts file) and the content of /etc/hostname.
     */
    public static List<String> localHostNames() {
        List<String> names = new ArrayList<>();
        try {
            names.add(InetAddress.getLocalHost().getHostName());
        } catch (UnknownHostException e) {
            // The host name does not resolve here; the message starts with it ("vm: Name or service not known").
            String msg = String.valueOf(e.getMessage());
            int colon = msg.indexOf(':');
            if (colon > 0) {
                names.add(msg.substring(0, colon));
            }
        }
        Path etcHostname = Path.of("/etc/hostname");
        if (Files.isReadable(etcHostname)) {
            try {
                names.add(Files.readString(etcHostname, StandardCharsets.UTF_8).strip());
            } catch (IOException e) {
                // unreadable: the name from InetAddress is enough
            }
        }
        return names;
    }

    /** Writes the hosts file into {@code dir} (created if needed) and returns it. */
    public static Path writeHostsFile(Path dir, List<String> hostNames) {
        Path file = dir.resolve(HOSTS_FILE_NAME);
        try {
            Files.createDirectories(dir);
            Files.write(file, hostsLines(hostNames), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot write the harness hosts file " + file + ": " + e.getMessage()
                    + ". Check that --out-dir is writable.", e);
        }
        return file;
    }
}
