package io.sluice.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.e2e.SluiceCluster.Host;
import io.sluice.e2e.SluiceCluster.SluiceProcess;
import io.sluice.testing.zookeeper.TestingZooKeeper;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Task managers whose job manager is not there, as separate processes ({@code sluice jobmanager} /
 * {@code sluice taskmanager} from the built {@code sluice.jar}, checkpoints on a shared directory),
 * with the default registration backoff (100 ms doubling to {@code taskmanager.registration.max-backoff}
 * 10 s) and the default heartbeats (1 s / 6 s):
 *
 * <ol>
 *   <li>A task manager started before its job manager (one job manager, {@code high-availability.type:
 *       embedded}, so the task manager is pointed at {@code jobmanager.rpc.host:port}, where nothing
 *       listens yet) logs one WARN line per attempt naming the job manager and its address, the error
 *       (Connection refused), the attempt and the next retry delay; the delays double from 100 ms to the
 *       10 s cap and it waits each of them; the process stays up. Then the job manager starts on that
 *       port: the same process (its PID is part of its id) registers at its next retry and the keyed
 *       counting job runs on it with exact counts.</li>
 *   <li>A whole job-manager outage ({@code zookeeper} HA, two job managers, two task managers): with the
 *       job RUNNING and checkpoints completing, every job manager is SIGKILLed. The task managers lose
 *       their job manager (no heartbeat answer for 6 s), cancel their tasks, and keep trying the dead
 *       leader that ZooKeeper names until its session expires (Connection refused, doubling delays), then
 *       wait for a leader. A fresh job manager process leads, recovers the job from ZooKeeper and its
 *       latest checkpoint, the same task manager processes register with it, and every key's final count
 *       is exact. The ZooKeeper session timeout is 15 s (the default is 60 s, too long for a test; the
 *       test server allows at most 20 s): a SIGKILLed job manager stays named leader until it expires,
 *       which is long enough for the task managers to notice the loss (6 s) and retry the dead leader a
 *       few times, and it bounds the outage.</li>
 * </ol>
 */
class UnreachableJobManagerITCase {
    private static final Pattern TASK_MANAGER_ID = Pattern.compile("Sluice task manager (\\S+):");
    private static final Pattern JOB_MANAGER_ID = Pattern.compile("Sluice job manager (\\S+);");
    /** A registration attempt that failed, as the task manager logs it. */
    private static final Pattern FAILED_ATTEMPT = Pattern.compile("^(\\S+ \\S+) WARN .* Task manager (\\S+) could not"
            + " register with job manager (\\S+) at (\\S+): (.*) \\(attempt (\\d+)\\); next retry in ([0-9.]+) (ms|s)$");
    private static final Pattern REGISTERED = Pattern.compile("^(\\S+ \\S+) INFO .* Task manager (\\S+) registered with"
            + " job manager (\\S+) at .* after (\\d+) attempt\\(s\\)$");
    private static final Pattern ADVERTISED_RPC = Pattern.compile("Advertised as sluice-jm://([^/]+)/");
    private static final DateTimeFormatter LOG_TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSS");
    /** {@code taskmanager.registration.initial-backoff} and {@code max-backoff}, their defaults. */
    private static final long INITIAL_BACKOFF_MILLIS = 100;
    private static final long MAX_BACKOFF_MILLIS = 10_000;
    private static final int ATTEMPTS_TO_THE_CAP = 8; // 100 ms * 2^7 = 12.8 s, above the cap
    private static final Duration SESSION_TIMEOUT = Duration.ofSeconds(15);
    private static final int KEYS = 8;
    private static final Duration TIMEOUT = Duration.ofSeconds(60);

    @TempDir
    Path dir;

    /** One failed registration attempt from a task manager's log. */
    record Attempt(LocalDateTime at, String jobManager, String address, String error, int number, long nextRetryMillis) {
    }

    @Test
    void aTaskManagerStartedBeforeItsJobManagerRetriesWithDoublingBackoffToTheCapAndRegistersOnceItRuns()
            throws Exception {
        int port = freePortBelowTheEphemeralRange(); // the job manager's RPC port, where nothing listens until it starts
        Map<String, String> common = new LinkedHashMap<>();
        common.put("high-availability.type", "embedded");
        common.put("high-availability.dir", dir.resolve("ha").toString());
        common.put("jobmanager.rpc.port", Integer.toString(port));
        try (SluiceCluster cluster = new SluiceCluster(dir, common)) {
            try {
                SluiceProcess tm = cluster.startTaskManager(Host.MACHINE, 2, Map.of());
                String tmId = processId(tm, TASK_MANAGER_ID);
                await().atMost(TIMEOUT).until(() -> failedAttempts(tm.log()).size() >= ATTEMPTS_TO_THE_CAP);
                List<Attempt> attempts = failedAttempts(tm.log());
                assertRetriedWithBackoff(tmId, attempts, "jobmanager", "127.0.0.1:" + port);
                assertThat(attempts.get(ATTEMPTS_TO_THE_CAP - 1).nextRetryMillis()).as("the cap").isEqualTo(MAX_BACKOFF_MILLIS);
                assertThat(tm.process().isAlive()).as("it keeps retrying instead of exiting").isTrue();

                SluiceProcess jm = cluster.startJobManager(Host.MACHINE, Map.of("jobmanager.rpc.port", Integer.toString(port)));
                long jobManagerUp = System.nanoTime();
                await().atMost(TIMEOUT).until(() -> Rest.registeredSlots(jm.restUrl()) == 2 && lastMatch(REGISTERED, tm.log()) != null);
                System.out.printf("UnreachableJobManagerITCase: the task manager registered %d ms after its job manager"
                        + " served REST (it retries every 10 s at the cap)%n", millisSince(jobManagerUp));
                Matcher registered = lastMatch(REGISTERED, tm.log());
                assertThat(registered).as("the registration line").isNotNull();
                assertThat(registered.group(2)).as("who registered").isEqualTo(tmId);
                List<Attempt> all = failedAttempts(tm.log());
                Attempt lastFailed = all.get(all.size() - 1);
                assertThat(Integer.parseInt(registered.group(4))).as("the attempt that registered").isEqualTo(lastFailed.number() + 1);
                assertThat(Duration.between(lastFailed.at(), LocalDateTime.parse(registered.group(1), LOG_TIME)).toMillis())
                        .as("it waited the announced delay before the attempt that registered")
                        .isGreaterThanOrEqualTo(lastFailed.nextRetryMillis() - 5);
                assertSameProcess(tm, tmId);

                long records = 4_000;
                Path output = dir.resolve("counts");
                String jobId = cluster.submitExample(jm.restUrl(), List.of("--parallelism", "2", "-D",
                        "checkpoints.interval=300 ms", "-D", "checkpoints.dir=" + dir.resolve("checkpoints")),
                        List.of("--records", Long.toString(records), "--keys", Integer.toString(KEYS), "--rate", "2000",
                                "--output", output.toString()));
                await().atMost(TIMEOUT).pollInterval(Duration.ofMillis(200))
                        .until(() -> Rest.jobStatus(jm.restUrl(), jobId).filter("FINISHED"::equals).isPresent());
                KeyedCounts.assertExact(output, records, KEYS);
                assertSameProcess(tm, tmId);
            } catch (Throwable t) {
                throw new AssertionError(t + cluster.diagnostics(), t);
            }
        }
    }

    @Test
    void afterEveryJobManagerWasSigkilledTheTaskManagersKeepRetryingAndAFreshOneRecoversTheJobExactly()
            throws Exception {
        try (TestingServer zooKeeper = TestingZooKeeper.start(dir)) {
            Map<String, String> common = new LinkedHashMap<>();
            common.put("high-availability.type", "zookeeper");
            common.put("high-availability.zookeeper.quorum", zooKeeper.getConnectString());
            common.put("high-availability.cluster-id", "outage");
            common.put("high-availability.zookeeper.session-timeout", SESSION_TIMEOUT.toSeconds() + " s");
            common.put("high-availability.storage-dir", dir.resolve("ha-storage").toString());
            try (SluiceCluster cluster = new SluiceCluster(dir, common)) {
                try {
                    wholeOutage(cluster);
                } catch (Throwable t) {
                    throw new AssertionError(t + cluster.diagnostics(), t);
                }
            }
        }
    }

    private void wholeOutage(SluiceCluster cluster) throws Exception {
        // One task manager before any job manager (it waits for a leader), one after.
        SluiceProcess early = cluster.startTaskManager(Host.MACHINE, 1, Map.of());
        List<SluiceProcess> jobManagers = cluster.startJobManagers(Host.MACHINE, 2, Map.of());
        SluiceProcess late = cluster.startTaskManager(Host.MACHINE, 1, Map.of());
        List<SluiceProcess> taskManagers = List.of(early, late);
        Map<SluiceProcess, String> ids = new LinkedHashMap<>();
        for (SluiceProcess tm : taskManagers) {
            ids.put(tm, processId(tm, TASK_MANAGER_ID));
        }
        List<String> urls = jobManagers.stream().map(SluiceProcess::restUrl).toList();
        String[] leader = new String[1];
        await().atMost(TIMEOUT).until(() -> (leader[0] = Rest.leaderAmong(urls)) != null && Rest.registeredSlots(leader[0]) == 2);
        SluiceProcess leading = jobManagers.stream().filter(jm -> jm.restUrl().equals(leader[0])).findFirst().orElseThrow();
        String leaderId = processId(leading, JOB_MANAGER_ID);
        await().atMost(TIMEOUT).until(() -> early.log().contains("Task manager " + ids.get(early)
                + " registered with job manager " + leaderId)); // it waited for the first leader, not restarted

        long records = 12_000;
        Path output = dir.resolve("counts");
        String jobId = cluster.submitExample(leader[0], List.of("--parallelism", "2", "-D", "checkpoints.interval=300 ms",
                "-D", "checkpoints.dir=" + dir.resolve("checkpoints")), List.of("--records", Long.toString(records),
                "--keys", Integer.toString(KEYS), "--rate", "1000", "--output", output.toString()));
        await().atMost(TIMEOUT).until(() -> Rest.completedCheckpoints(leader[0], jobId) >= 2);
        assertThat(Rest.jobStatus(leader[0], jobId)).as("the job at the outage").contains("RUNNING");

        long latestBeforeOutage = Rest.job(leader[0], jobId).orElseThrow().path("checkpoints").path("latestId").asLong();
        long killed = System.nanoTime();
        for (SluiceProcess jm : jobManagers) {
            jm.kill();
        }
        long countedBeforeOutage = KeyedCounts.highest(output).values().stream().mapToLong(Long::longValue).sum();
        assertThat(countedBeforeOutage).as("records counted when the job managers died").isLessThan(records);

        // The task managers lose the job manager, cancel their tasks, and retry the dead leader.
        for (SluiceProcess tm : taskManagers) {
            await().atMost(TIMEOUT).until(() -> tm.log().contains("Task manager " + ids.get(tm) + " lost its job manager")
                    && !attemptsAfterLoss(tm).isEmpty());
        }
        System.out.printf("UnreachableJobManagerITCase: both task managers lost their job manager and retry it %d ms"
                + " after every job manager was SIGKILLed (heartbeat timeout the default 6 s)%n", millisSince(killed));
        List<String> cancelled = taskManagers.stream().filter(tm -> log(tm).contains("Task executor " + ids.get(tm)
                + " cancels its")).map(ids::get).toList();
        System.out.println("UnreachableJobManagerITCase: task managers that cancelled running tasks: " + cancelled
                + " (a task whose remote partner was cancelled first may have failed already)");
        assertThat(cancelled).as("task managers cancelling their tasks on the job manager loss").isNotEmpty();

        SluiceProcess fresh = cluster.startJobManager(Host.MACHINE, Map.of());
        await().atMost(TIMEOUT).pollInterval(Duration.ofMillis(50)).until(() -> Rest.isLeader(fresh.restUrl()));
        long leads = millisSince(killed);
        await().atMost(TIMEOUT).pollInterval(Duration.ofMillis(50))
                .until(() -> Rest.jobStatus(fresh.restUrl(), jobId).filter("RUNNING"::equals).isPresent());
        System.out.printf("UnreachableJobManagerITCase: after the SIGKILL of every job manager, a fresh one leads after"
                + " %d ms (ZooKeeper session timeout %d s) and the job is RUNNING again after %d ms%n", leads,
                SESSION_TIMEOUT.toSeconds(), millisSince(killed));
        JsonNode job = Rest.job(fresh.restUrl(), jobId).orElseThrow();
        assertThat(job.path("recovery").path("metadataLoaded").asInt()).as("the recovery read the latest checkpoint: " + job)
                .isEqualTo(1);
        assertThat(job.path("checkpoints").path("latestId").asLong()).as("the checkpoint it resumes from: " + job)
                .isGreaterThanOrEqualTo(latestBeforeOutage).isPositive();

        // While the dead leader was named, each task manager tried it: Connection refused, doubling delays.
        for (SluiceProcess tm : taskManagers) {
            List<Attempt> onDeadLeader = attemptsAfterLoss(tm).stream().takeWhile(a -> a.jobManager().equals(leaderId)).toList();
            assertThat(onDeadLeader).as("attempts on the dead leader").isNotEmpty();
            assertRetriedWithBackoff(ids.get(tm), onDeadLeader, leaderId, processId(leading, ADVERTISED_RPC));
        }

        await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(200))
                .until(() -> Rest.jobStatus(fresh.restUrl(), jobId).filter("FINISHED"::equals).isPresent());
        KeyedCounts.assertExact(output, records, KEYS);

        String freshId = processId(fresh, JOB_MANAGER_ID);
        for (SluiceProcess tm : taskManagers) {
            assertSameProcess(tm, ids.get(tm));
            assertThat(tm.log()).as(tm.name() + " registers with the fresh job manager")
                    .contains("Task manager " + ids.get(tm) + " registered with job manager " + freshId)
                    // it registers again only once its old tasks have ended, or says that some have not
                    .doesNotContain("some tasks have not ended");
        }
    }

    /**
     * Still the process the test started: alive, and {@code id} (printed at its start, made of its PID and a
     * random part, so a restarted process has another) carries its PID. The registration lines name {@code id}.
     */
    private static void assertSameProcess(SluiceProcess tm, String id) {
        assertThat(tm.process().isAlive()).as(tm.name() + " alive").isTrue();
        assertThat(id).as(tm.name() + "'s id carries its PID").startsWith("taskmanager-" + tm.process().pid() + "-");
    }

    /**
     * The attempts are numbered 1, 2, 3, ..., name the job manager and its RPC address and Connection
     * refused, announce 100 ms doubling to the 10 s cap, and each waited at least what the one before announced.
     */
    private static void assertRetriedWithBackoff(String tmId, List<Attempt> attempts, String jobManagerId, String address) {
        System.out.println("UnreachableJobManagerITCase: " + tmId + " attempts on " + jobManagerId + ": " + attempts.stream()
                .map(a -> "#" + a.number() + " at " + a.at().toLocalTime() + ", next in " + a.nextRetryMillis() + " ms").toList());
        for (int i = 0; i < attempts.size(); i++) {
            Attempt a = attempts.get(i);
            assertThat(a.number()).as("attempt numbers").isEqualTo(i + 1);
            assertThat(a.jobManager()).as("the job manager it tries").isEqualTo(jobManagerId);
            assertThat(a.address()).as("where it tries").isEqualTo(address);
            assertThat(a.error()).as("the error of attempt " + a.number()).contains("Connection refused");
            long expected = Math.min(INITIAL_BACKOFF_MILLIS << Math.min(i, 20), MAX_BACKOFF_MILLIS);
            assertThat(a.nextRetryMillis()).as("the delay after attempt " + a.number()).isEqualTo(expected);
            if (i > 0) {
                long waited = Duration.between(attempts.get(i - 1).at(), a.at()).toMillis();
                assertThat(waited).as("time between attempts " + i + " and " + a.number())
                        .isGreaterThanOrEqualTo(attempts.get(i - 1).nextRetryMillis() - 5);
            }
        }
    }

    /** The failed attempts a task manager logged after it lost its job manager. */
    private static List<Attempt> attemptsAfterLoss(SluiceProcess tm) throws IOException {
        String log = tm.log();
        int lost = log.lastIndexOf(" lost its job manager");
        return lost < 0 ? List.of() : failedAttempts(log.substring(lost));
    }

    private static List<Attempt> failedAttempts(String log) {
        List<Attempt> out = new ArrayList<>();
        for (String line : log.lines().toList()) {
            Matcher m = FAILED_ATTEMPT.matcher(line);
            if (m.matches()) {
                double value = Double.parseDouble(m.group(7));
                long millis = Math.round(m.group(8).equals("ms") ? value : value * 1000);
                out.add(new Attempt(LocalDateTime.parse(m.group(1), LOG_TIME), m.group(3), m.group(4), m.group(5),
                        Integer.parseInt(m.group(6)), millis));
            }
        }
        return out;
    }

    private static String processId(SluiceProcess p, Pattern printed) {
        String[] id = new String[1];
        await().atMost(TIMEOUT).until(() -> {
            Matcher m = printed.matcher(p.output());
            return m.find() && (id[0] = m.group(1)) != null;
        });
        return id[0];
    }

    private static Matcher lastMatch(Pattern pattern, String log) {
        Matcher last = null;
        for (String line : log.lines().toList()) {
            Matcher m = pattern.matcher(line);
            if (m.matches()) {
                last = m;
            }
        }
        return last;
    }

    private static String log(SluiceProcess p) {
        try {
            return p.log();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /**
     * A port that is free now, from 20000-29999: below Linux's ephemeral range (32768 and up), so that no
     * other process's outgoing connection or port-0 server (other tests on this machine) takes it
     * before the job manager binds it.
     */
    private static int freePortBelowTheEphemeralRange() throws IOException {
        int start = java.util.concurrent.ThreadLocalRandom.current().nextInt(10_000);
        for (int i = 0; i < 10_000; i++) {
            int port = 20_000 + (start + i) % 10_000;
            try (ServerSocket probe = new ServerSocket(port, 1, java.net.InetAddress.getLoopbackAddress())) {
                return port;
            } catch (IOException taken) {
                // try the next one
            }
        }
        throw new IOException("no free port in 20000-29999");
    }

    private static long millisSince(long nanos) {
        return (System.nanoTime() - nanos) / 1_000_000;
    }
}
