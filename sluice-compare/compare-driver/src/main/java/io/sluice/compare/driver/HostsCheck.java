package io.sluice.compare.driver;

import java.io.IOException;
import java.net.InetAddress;
import java.net.URISyntaxException;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Checks that a JVM started with the harness options resolves every name of the hosts file to
 * 127.0.0.1. {@code jdk.net.hosts.file} is read once when a JVM starts resolving names, so the check
 * forks a small JVM ({@link #main}) rather than trying it in the driver's own.
 */
public final class HostsCheck {
    private HostsCheck() {}

    /** Resolves each argument; prints one line per name; exits 1 if any does not resolve to 127.0.0.1 only. */
    public static void main(String[] args) {
        boolean ok = true;
        for (String name : args) {
            try {
                InetAddress[] all = InetAddress.getAllByName(name);
                boolean loopback = Arrays.stream(all).allMatch(a -> a.getHostAddress().equals("127.0.0.1"));
                System.out.println(name + " -> " + Arrays.stream(all).map(InetAddress::getHostAddress).toList());
                ok &= loopback;
            } catch (UnknownHostException e) {
                System.out.println(name + " -> does not resolve: " + e.getMessage());
                ok = false;
            }
        }
        System.exit(ok ? 0 : 1);
    }

    /**
     * Forks {@code java <jvmOptions> HostsCheck <names>}; empty if every name resolved to 127.0.0.1,
     * otherwise what went wrong (with the child's output).
     */
    public static Optional<String> verify(Path javaBin, List<String> jvmOptions, List<String> names) {
        List<String> cmd = new ArrayList<>();
        cmd.add(javaBin.toString());
        cmd.addAll(jvmOptions);
        cmd.add("-cp");
        cmd.add(ownClasspath());
        cmd.add(HostsCheck.class.getName());
        cmd.addAll(names);
        try {
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            p.getOutputStream().close();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            if (!p.waitFor(60, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return Optional.of("the host name check did not finish within 60 s: " + String.join(" ", cmd));
            }
            return p.exitValue() == 0 ? Optional.empty()
                    : Optional.of("with the harness JVM options, not every name resolves to 127.0.0.1:\n" + out);
        } catch (IOException e) {
            return Optional.of("cannot start " + javaBin + " for the host name check: " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.of("interrupted during the host name check");
        }
    }

    private static String ownClasspath() {
        try {
            return Path.of(HostsCheck.class.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
        } catch (URISyntaxException e) {
            throw new IllegalStateException("Cannot locate the driver's classes: " + e.getMessage(), e);
        }
    }
}
