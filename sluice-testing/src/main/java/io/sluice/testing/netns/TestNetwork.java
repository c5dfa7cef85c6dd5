package io.sluice.testing.netns;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Test hosts on one machine: each host is a Linux network namespace with its own address, joined to
 * every other host (and to the machine itself, "host 0", where the test JVM and its ZooKeeper run)
 * by its own point-to-point veth link. Because every pair of hosts has a link of its own, a test
 * can cut exactly one pair ({@link #partition}) — a task manager from the job manager, or two task
 * managers from each other — with nothing but {@code ip link}, no packet filter. Addresses are
 * {@code /32} on each namespace's loopback, reached through per-peer routes, so a process binds one
 * address and every peer reaches it whichever link it takes.
 *
 * <p>Needs root and a kernel that allows network namespaces and veth ({@link #probe} says why not
 * otherwise, for a test to skip with that reason). Each instance holds its subnet
 * {@code 10.77.<n>.0/24} exclusively on this machine ({@link SubnetClaim}, a lock file shared by every
 * JVM), so tests in parallel forks never share addresses; everything created is named with a tag made
 * from that subnet and removed by {@link #close}, also after a failed test.
 *
 * <p>Threading: not thread-safe; one test thread drives it. Each method runs {@code ip} commands
 * and waits for them (up to 10 s each).
 */
public final class TestNetwork implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(TestNetwork.class);

    /** Index 0 is the machine itself (the root namespace). */
    public static final int MACHINE = 0;

    private final SubnetClaim claim;
    private final String tag;
    private final int subnet;
    private final int hosts;
    private final List<String> namespaces = new ArrayList<>();
    /** Links by their endpoints {@code "a-b"} (a < b), each with its interface names at a and at b. */
    private final Map<String, String[]> links = new LinkedHashMap<>();
    private boolean closed;

    private TestNetwork(SubnetClaim claim, int hosts) {
        this.claim = claim;
        this.tag = claim.tag(ThreadLocalRandom.current().nextInt(256));
        this.subnet = claim.subnet();
        this.hosts = hosts;
    }

    /**
     * Why test hosts cannot be made here, or {@code null} if they can (tries a throwaway namespace
     * and veth pair).
     */
    public static String probe() {
        String ns = "slprobe" + Integer.toHexString(ThreadLocalRandom.current().nextInt(0x1000, 0x10000));
        try {
            run("ip", "netns", "add", ns);
            try {
                run("ip", "link", "add", ns + "a", "type", "veth", "peer", "name", ns + "b");
                run("ip", "link", "del", ns + "a");
            } finally {
                run("ip", "netns", "del", ns);
            }
            return null;
        } catch (IOException e) {
            return "network namespaces with veth links are not available here (" + e.getMessage() + ")";
        }
    }

    /** Creates {@code hosts} test hosts (1..hosts), fully meshed with each other and with the machine. */
    public static TestNetwork create(int hosts) throws IOException {
        if (hosts < 1 || hosts > 12) {
            throw new IllegalArgumentException("between 1 and 12 test hosts, not " + hosts);
        }
        SubnetClaim claim = SubnetClaim.claim(SubnetClaim.DEFAULT_DIR, TestNetwork::machineHasSubnet);
        TestNetwork net = new TestNetwork(claim, hosts);
        try {
            net.build();
        } catch (IOException | RuntimeException e) {
            net.close();
            throw e;
        }
        return net;
    }

    private void build() throws IOException {
        for (int h = 1; h <= hosts; h++) {
            String ns = namespace(h);
            run("ip", "netns", "add", ns);
            namespaces.add(ns);
            run("ip", "-n", ns, "link", "set", "lo", "up");
            run("ip", "-n", ns, "addr", "add", address(h) + "/32", "dev", "lo");
        }
        run("ip", "addr", "add", address(MACHINE) + "/32", "dev", "lo");
        for (int a = 0; a <= hosts; a++) {
            for (int b = a + 1; b <= hosts; b++) {
                String ifA = "sl" + tag + "h" + a + "x" + b;
                String ifB = "sl" + tag + "h" + b + "x" + a;
                run("ip", "link", "add", ifA, "type", "veth", "peer", "name", ifB);
                links.put(a + "-" + b, new String[] {ifA, ifB});
                if (a != MACHINE) {
                    run("ip", "link", "set", ifA, "netns", namespace(a));
                }
                run("ip", "link", "set", ifB, "netns", namespace(b));
                connect(a, b);
            }
        }
        LOG.info("Test network {}: machine {} and hosts {}", tag, address(MACHINE), hostAddresses());
    }

    /** Brings the link between {@code a} and {@code b} up and (re)adds the routes over it. */
    private void connect(int a, int b) throws IOException {
        String[] names = link(a, b);
        ip(a, "link", "set", names[0], "up");
        ip(b, "link", "set", names[1], "up");
        ip(a, "route", "replace", address(b) + "/32", "dev", names[0], "src", address(a));
        ip(b, "route", "replace", address(a) + "/32", "dev", names[1], "src", address(b));
    }

    /** The address of test host {@code host} (or of the machine, {@link #MACHINE}). */
    public String address(int host) {
        checkHost(host);
        return "10.77." + subnet + "." + (host == MACHINE ? 254 : host);
    }

    public List<String> hostAddresses() {
        List<String> out = new ArrayList<>();
        for (int h = 1; h <= hosts; h++) {
            out.add(address(h));
        }
        return out;
    }

    /** The namespace name of test host {@code host} (1..hosts). */
    public String namespace(int host) {
        if (host < 1 || host > hosts) {
            throw new IllegalArgumentException("no test host " + host + " (hosts are 1.." + hosts + ")");
        }
        return "sl" + tag + "h" + host;
    }

    /**
     * The command line that runs {@code command} on test host {@code host}: {@code ip netns exec}
     * (for {@link ProcessBuilder}; the machine itself runs it as is).
     */
    public List<String> commandOn(int host, List<String> command) {
        checkHost(host);
        List<String> out = new ArrayList<>();
        if (host != MACHINE) {
            out.addAll(List.of("ip", "netns", "exec", namespace(host)));
        }
        out.addAll(command);
        return out;
    }

    /** Cuts the link between {@code a} and {@code b}: packets between them are lost, others flow. */
    public void partition(int a, int b) throws IOException {
        String[] names = link(a, b);
        ip(a, "link", "set", names[0], "down");
        ip(b, "link", "set", names[1], "down");
        LOG.info("Test network {}: partitioned {} from {}", tag, address(a), address(b));
    }

    /** Cuts {@code host} from the machine and every other host. */
    public void isolate(int host) throws IOException {
        for (int other = 0; other <= hosts; other++) {
            if (other != host) {
                partition(host, other);
            }
        }
    }

    /** Restores the link between {@code a} and {@code b}. */
    public void heal(int a, int b) throws IOException {
        connect(a, b);
        LOG.info("Test network {}: healed {} - {}", tag, address(a), address(b));
    }

    /** Restores every link. */
    public void healAll() throws IOException {
        for (String key : links.keySet()) {
            String[] ends = key.split("-");
            connect(Integer.parseInt(ends[0]), Integer.parseInt(ends[1]));
        }
    }

    private String[] link(int a, int b) {
        checkHost(a);
        checkHost(b);
        if (a == b) {
            throw new IllegalArgumentException("a host has no link to itself: " + a);
        }
        return a < b ? links.get(a + "-" + b) : reversed(links.get(b + "-" + a));
    }

    private static String[] reversed(String[] names) {
        return new String[] {names[1], names[0]};
    }

    private void checkHost(int host) {
        if (host < 0 || host > hosts) {
            throw new IllegalArgumentException("no test host " + host + " (hosts are 1.." + hosts
                    + ", the machine is " + MACHINE + ")");
        }
    }

    private void ip(int host, String... args) throws IOException {
        List<String> command = new ArrayList<>(List.of("ip"));
        if (host != MACHINE) {
            command.addAll(List.of("-n", namespace(host)));
        }
        command.addAll(List.of(args));
        run(command.toArray(String[]::new));
    }

    /** Removes every namespace, link and address this network made; idempotent, never throws. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        for (String[] names : links.values()) {
            // Deleting one end deletes the pair; the machine's end exists only for links to host 0.
            tryRun("ip", "link", "del", names[0]);
        }
        for (String ns : namespaces) {
            tryRun("ip", "netns", "del", ns);
        }
        tryRun("ip", "addr", "del", address(MACHINE) + "/32", "dev", "lo");
        claim.close();
    }

    /** Whether an address of {@code subnet} is on this machine's loopback (left by a killed test, say). */
    private static boolean machineHasSubnet(int subnet) {
        try {
            Process p = new ProcessBuilder("ip", "-o", "addr", "show", "dev", "lo").redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            p.waitFor(10, TimeUnit.SECONDS);
            return out.contains(" 10.77." + subnet + ".");
        } catch (IOException e) {
            return false; // creating the network reports what is wrong with ip
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private static void tryRun(String... command) {
        try {
            run(command);
        } catch (IOException e) {
            LOG.debug("cleanup: {}", e.getMessage());
        }
    }

    private static void run(String... command) throws IOException {
        Objects.requireNonNull(command);
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        try {
            if (!p.waitFor(10, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IOException(String.join(" ", command) + " did not finish within 10 s");
            }
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while running " + String.join(" ", command), e);
        }
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        if (p.exitValue() != 0) {
            throw new IOException(String.join(" ", command) + " failed (exit " + p.exitValue() + "): " + output);
        }
    }
}
