package io.sluice.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.connector.kafka.KafkaBroker;
import io.sluice.e2e.SluiceCluster.Host;
import io.sluice.e2e.SluiceCluster.SluiceProcess;
import io.sluice.testing.zookeeper.TestingZooKeeper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.apache.curator.test.TestingServer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Exactly once from Kafka to Kafka across processes: the {@code KafkaClickSessions} example
 * ({@code sluice-examples-kafka.jar}, submitted with {@code sluice run}) on two {@code sluice jobmanager}
 * processes (ZooKeeper HA through Curator's {@code TestingServer}) and three {@code sluice taskmanager}
 * processes, reading clicks from and writing sessions to a real KRaft broker in this JVM
 * ({@link KafkaBroker}); the sink reaches the broker only through a {@code TcpFaultProxy}, the source
 * directly. While a {@link ClickFeed} writes clicks, three kills in an order drawn from a seed (printed
 * with the whole plan; {@code -Dsluice.e2e.kafka.seeds=a,b} replays):
 * <ul>
 *   <li>a task manager running tasks of the job, SIGKILLed at a seeded moment after one to four completed
 *       checkpoints;</li>
 *   <li>the leading job manager (and, by the seed, a busy task manager with it) SIGKILLed <b>between
 *       pre-commit and commit</b>: the proxy refuses the sink's connections, checkpoints go on completing
 *       and REST shows their committables pending ({@code vertices[].commits}); the kill comes after one to
 *       three such checkpoints, then the proxy heals, and the new leader restores the latest checkpoint,
 *       whose committables must be committed once;</li>
 *   <li>the task managers running tasks SIGKILLed <b>during a commit</b>: the proxy delays the sink's
 *       bytes by 300 ms so that a commit transaction stays open for seconds, and the kill comes once the
 *       output topic's end for {@code read_uncommitted} is ahead of its end for {@code read_committed}
 *       (records of the open transaction are in the log); the restarted sink aborts that transaction
 *       and commits the checkpoint's records again.</li>
 * </ul>
 * Then {@code sluice rescale <job> 3} (stop with a savepoint, run again at 3 from it) while clicks keep coming:
 * the new job must commit, every vertex at 3 (one source subtask has no partition and is idle), without the sink
 * taking its predecessor for another job or the idle subtask failing.
 * Then the feed ends and closes the last sessions; a {@code read_committed} consumer must see exactly the
 * sessions of the clicks written, each once, and a {@code read_uncommitted} consumer must see more
 * (the aborted transaction's records), so the check can fail.
 */
class KafkaProcessesITCase {
    private static final Pattern TASK_MANAGER_ID = Pattern.compile("Sluice task manager (\\S+):");
    private static final Duration CHECKPOINT_INTERVAL = Duration.ofMillis(500);
    private static final Duration GAP = Duration.ofSeconds(2);
    private static final Duration FEED_PERIOD = Duration.ofMillis(400);
    private static final Duration COMMIT_LATENCY = Duration.ofMillis(300);
    private static final Duration RECOVERY_TIMEOUT = Duration.ofSeconds(90);
    private static final int PARALLELISM = 2;
    /** The parallelism {@code sluice rescale} gives the job after the kills: more than the input's 2 partitions. */
    private static final int RESCALED = 3;
    private static final Pattern SUBMITTED = Pattern.compile("Job ([0-9a-f]{32}) submitted");
    private static final int TASK_MANAGERS = 3;
    private static final int SLOTS = 2;

    private static KafkaBroker broker;
    private static TestingServer zooKeeper;
    /** Where the ZooKeeper server shared by the class keeps its files. */
    @TempDir
    static Path zooKeeperDir;

    @TempDir
    Path dir;

    private SluiceCluster processes;
    private ClickFeed feed;

    @BeforeAll
    static void startBrokerAndZooKeeper() throws Exception {
        broker = KafkaBroker.start();
        zooKeeper = TestingZooKeeper.start(zooKeeperDir);
    }

    @AfterAll
    static void stopBrokerAndZooKeeper() throws Exception {
        if (broker != null) {
            broker.close();
        }
        if (zooKeeper != null) {
            zooKeeper.close();
        }
    }

    @AfterEach
    void stopProcesses() throws Exception {
        if (feed != null) {
            feed.close();
        }
        if (processes != null) {
            processes.close();
        }
        broker.proxy().heal();
    }

    /** What a step of the plan kills, and when. */
    enum Kill {
        TASK_MANAGER_AT_A_SEEDED_MOMENT, LEADER_BETWEEN_PRE_COMMIT_AND_COMMIT, TASK_MANAGERS_DURING_A_COMMIT
    }

    /**
     * One kill: what, after how many completed checkpoints (for the leader: checkpoints completed while
     * commits wait), at which fraction of an interval after that (the random task-manager kill), whether a
     * task manager dies with the leader, and which busy task manager.
     */
    record Step(Kill kill, int checkpoints, double at, boolean withTaskManager, int victim) {
        @Override
        public String toString() {
            return switch (kill) {
                case TASK_MANAGER_AT_A_SEEDED_MOMENT -> String.format("a busy task manager (#%d) %.2f of an interval after %d"
                        + " checkpoint(s)", victim, at, checkpoints);
                case LEADER_BETWEEN_PRE_COMMIT_AND_COMMIT -> "the leader" + (withTaskManager ? " and a busy task manager (#"
                        + victim + ")" : "") + " after " + checkpoints + " checkpoint(s) completed while commits wait";
                case TASK_MANAGERS_DURING_A_COMMIT -> "the busy task managers while a commit transaction is open";
            };
        }
    }

    /** The three kills in a seeded order, with seeded parameters. */
    private static List<Step> plan(SplittableRandom random) {
        List<Kill> kills = new ArrayList<>(List.of(Kill.values()));
        for (int i = kills.size() - 1; i > 0; i--) {
            int j = random.nextInt(i + 1);
            Kill k = kills.get(i);
            kills.set(i, kills.get(j));
            kills.set(j, k);
        }
        List<Step> plan = new ArrayList<>();
        for (Kill k : kills) {
            int checkpoints = k == Kill.TASK_MANAGER_AT_A_SEEDED_MOMENT ? 1 + random.nextInt(4) : 1 + random.nextInt(3);
            plan.add(new Step(k, checkpoints, random.nextDouble(), random.nextBoolean(), random.nextInt(1 << 16)));
        }
        return plan;
    }

    @Test
    void sessionsReachTheOutputTopicExactlyOnceWhileTaskManagersAndTheLeaderAreSigkilled() throws Exception {
        String seeds = System.getProperty("sluice.e2e.kafka.seeds", "20261203");
        for (String s : seeds.split(",")) {
            long seed = Long.parseLong(s.trim());
            System.out.println("KafkaProcessesITCase: seed " + seed + " (replay with -Dsluice.e2e.kafka.seeds=" + seed + ")");
            runSeed(seed);
        }
    }

    private void runSeed(long seed) throws Exception {
        SplittableRandom random = new SplittableRandom(seed);
        List<Step> plan = plan(random);
        System.out.println("KafkaProcessesITCase: seed " + seed + ": plan " + plan);
        long startedAt = System.nanoTime();
        String in = KafkaBroker.unique("clicks");
        String out = KafkaBroker.unique("sessions");
        broker.createTopic(in, 2);
        broker.createTopic(out, 2);
        Path run = Files.createDirectories(dir.resolve("seed-" + seed));
        processes = new SluiceCluster(run, SluiceCluster.zooKeeperHa(zooKeeper.getConnectString(), "kafka-e2e-" + seed,
                run.resolve("ha-storage")));
        try {
            // Every process launched at once (their start-ups overlap); the task managers find the leader in ZooKeeper.
            List<SluiceProcess> launched = List.of(processes.launchJobManager(Host.MACHINE, Map.of()),
                    processes.launchJobManager(Host.MACHINE, Map.of()));
            List<SluiceProcess> taskManagers = new ArrayList<>();
            for (int i = 0; i < TASK_MANAGERS; i++) {
                taskManagers.add(processes.startTaskManager(Host.MACHINE, SLOTS, Map.of()));
            }
            List<SluiceProcess> jobManagers = new ArrayList<>();
            for (SluiceProcess jm : launched) {
                jobManagers.add(processes.awaitServing(jm));
            }
            String leader = awaitLeader(jobManagers);
            await().atMost(RECOVERY_TIMEOUT).until(() -> Rest.registeredSlots(leader) == TASK_MANAGERS * SLOTS);

            feed = ClickFeed.start(broker.bootstrapServers(), in, GAP, FEED_PERIOD);
            String prefix = KafkaBroker.unique("e2e-sessions");
            SluiceCluster.CommandResult submitted = processes.submitJar(SluiceCluster.examplesKafkaJar(), leader,
                    List.of("--class", "io.sluice.examples.jobs.KafkaClickSessions", "--parallelism",
                            Integer.toString(PARALLELISM), "-D", "checkpoints.dir=" + run.resolve("checkpoints")),
                    List.of("--bootstrap", broker.bootstrapServers(), "--output-bootstrap",
                            broker.proxiedBootstrapServers(), "--input", in, "--output", out, "--gap", GAP.toMillis() + "ms",
                            "--disorder", "100ms", "--prefix", prefix, "--checkpoint-interval",
                            CHECKPOINT_INTERVAL.toMillis() + "ms"));
            assertThat(submitted.exitCode()).as("sluice run:\n" + submitted.output()).isZero();
            String firstJob = submitted.jobId();
            awaitCommitting(jobManagers, firstJob);

            for (Step step : plan) {
                long killedAt = execute(step, jobManagers, taskManagers, firstJob, out, seed);
                String now = awaitLeader(jobManagers);
                long running = awaitRunningSince(now, firstJob, killedAt);
                awaitCommitting(jobManagers, firstJob);
                System.out.printf("KafkaProcessesITCase: seed %d: %s: job RUNNING again %d ms after the SIGKILL, committing"
                        + " again%n", seed, step.kill(), running - killedAt);
            }

            // The second day: sluice rescale to 3 while clicks keep coming. The input has 2 partitions, so one
            // source subtask reads none (it must be idle, or it would hold every session window back); the
            // readers take the partitions' offsets from the old ones, the sessions move by key groups, and the
            // sink goes on through the prefix of the job it was restored from.
            String leaderNow = awaitLeader(jobManagers);
            SluiceCluster.CommandResult rescale = SluiceCluster.sluice(run, List.of("rescale", firstJob,
                    Integer.toString(RESCALED), SluiceCluster.examplesKafkaJar().toString(), "--detached", "--cluster",
                    leaderNow, "--class", "io.sluice.examples.jobs.KafkaClickSessions", "-D",
                    "checkpoints.dir=" + run.resolve("checkpoints"), "--", "--bootstrap", broker.bootstrapServers(),
                    "--output-bootstrap", broker.proxiedBootstrapServers(), "--input", in, "--output", out, "--gap",
                    GAP.toMillis() + "ms", "--disorder", "100ms", "--prefix", prefix, "--checkpoint-interval",
                    CHECKPOINT_INTERVAL.toMillis() + "ms"));
            System.out.println("KafkaProcessesITCase: seed " + seed + ": sluice rescale " + firstJob + " " + RESCALED
                    + ": exit " + rescale.exitCode() + ":\n" + rescale.output().strip());
            assertThat(rescale.exitCode()).as("sluice rescale:\n" + rescale.output()).isZero();
            Matcher rescaled = SUBMITTED.matcher(rescale.output());
            assertThat(rescaled.find()).as("the rescaled job's id in:\n" + rescale.output()).isTrue();
            String jobId = rescaled.group(1);
            awaitCommitting(jobManagers, jobId);
            JsonNode rescaledJob = Rest.job(awaitLeader(jobManagers), jobId).orElseThrow();
            for (JsonNode v : rescaledJob.path("vertices")) {
                assertThat(v.path("parallelism").asInt()).as("vertex " + v.path("name")).isEqualTo(RESCALED);
            }
            // Neither of the two ways it failed before: the sink taking its predecessor for a second job on the
            // prefix, the source subtask without a partition polling a consumer with nothing assigned. (Not "no
            // restart at all": on a loaded machine a restart for another reason is allowed, and exactly-once holds.)
            assertThat(rescaledJob.path("restarts").path("recent").toString()).as("restarts of the rescaled job")
                    .doesNotContain("is in use by job").doesNotContain("not subscribed to any topics");

            int blocks = feed.finish();
            List<String> expected = feed.expectedSessions(blocks);
            await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(500))
                    .until(() -> broker.readAll(out, "read_committed").size() >= expected.size());
            // A few more commits, so that a duplicate committed late would be seen too.
            awaitMoreCheckpoints(jobManagers, jobId, 4);
            List<String> committed = broker.readAll(out, "read_committed");
            List<String> everything = broker.readAll(out, "read_uncommitted");
            Map<String, Long> copies = committed.stream().collect(Collectors.groupingBy(Function.identity(),
                    Collectors.counting()));
            Map<String, Long> duplicated = new HashMap<>();
            copies.forEach((line, n) -> {
                if (n > 1) {
                    duplicated.put(line, n);
                }
            });
            assertThat(duplicated).as("sessions committed more than once (seed %d)", seed).isEmpty();
            assertThat(copies.keySet()).as("the committed sessions of %d blocks of clicks (seed %d)", blocks, seed)
                    .containsExactlyInAnyOrderElementsOf(expected);
            assertThat(everything).as("records of the aborted commit transaction are in the log (seed %d)", seed)
                    .hasSizeGreaterThan(committed.size()).containsAll(committed);
            System.out.printf("KafkaProcessesITCase: seed %d passed in %d s: %d blocks of clicks (%d), %d sessions committed"
                    + " exactly once, %d records of aborted transactions in the log%n", seed,
                    (System.nanoTime() - startedAt) / 1_000_000_000, blocks, blocks * ClickFeed.CLICKS_PER_BLOCK,
                    committed.size(), everything.size() - committed.size());
        } catch (Throwable t) {
            throw new AssertionError("seed " + seed + " failed: " + t + processes.diagnostics(), t);
        } finally {
            if (feed != null) {
                feed.close();
                feed = null;
            }
            processes.close();
            processes = null;
            broker.proxy().heal();
        }
    }

    /** Carries out {@code step}; returns the wall-clock time of the (first) SIGKILL. */
    private long execute(Step step, List<SluiceProcess> jobManagers, List<SluiceProcess> taskManagers, String jobId,
            String out, long seed) throws Exception {
        String leader = awaitLeader(jobManagers);
        List<SluiceProcess> busy = busyTaskManagers(leader, taskManagers);
        long killedAt;
        switch (step.kill()) {
            case TASK_MANAGER_AT_A_SEEDED_MOMENT -> {
                awaitMoreCheckpoints(jobManagers, jobId, step.checkpoints());
                long wait = (long) (step.at() * CHECKPOINT_INTERVAL.toMillis());
                await().pollDelay(Duration.ofMillis(wait)).atMost(Duration.ofMillis(wait + 1_000)).until(() -> true);
                killedAt = System.currentTimeMillis();
                kill(busy.get(step.victim() % busy.size()), taskManagers);
                System.out.printf("KafkaProcessesITCase: seed %d: SIGKILLed %s%n", seed, step);
                taskManagers.add(processes.startTaskManager(Host.MACHINE, SLOTS, Map.of()));
            }
            case LEADER_BETWEEN_PRE_COMMIT_AND_COMMIT -> {
                broker.proxy().refuseConnections();
                broker.proxy().dropConnections();
                long completedAtRefusal = Rest.completedCheckpoints(leader, jobId);
                JsonNode[] waiting = new JsonNode[1];
                await().atMost(RECOVERY_TIMEOUT).pollInterval(Duration.ofMillis(20)).until(() -> {
                    Optional<JsonNode> job = Rest.job(leader, jobId);
                    if (job.isEmpty()) {
                        return false;
                    }
                    JsonNode c = commits(job.get());
                    waiting[0] = c;
                    // Checkpoints completed while no commit can reach the broker: their committables wait.
                    return job.get().path("checkpoints").path("completed").asLong() >= completedAtRefusal + step.checkpoints()
                            && c.path("pendingCommittables").asLong() >= step.checkpoints();
                });
                killedAt = System.currentTimeMillis();
                SluiceProcess victim = jobManagers.stream().filter(jm -> jm.restUrl().equals(leader)).findFirst().orElseThrow();
                victim.kill();
                jobManagers.remove(victim);
                if (step.withTaskManager()) {
                    kill(busy.get(step.victim() % busy.size()), taskManagers);
                }
                System.out.printf("KafkaProcessesITCase: seed %d: SIGKILLed %s; the sink's commits then: %s%n", seed, step,
                        waiting[0]);
                broker.proxy().heal();
                jobManagers.add(processes.startJobManager(Host.MACHINE, Map.of()));
                if (step.withTaskManager()) {
                    taskManagers.add(processes.startTaskManager(Host.MACHINE, SLOTS, Map.of()));
                }
            }
            case TASK_MANAGERS_DURING_A_COMMIT -> {
                broker.proxy().setLatency(COMMIT_LATENCY);
                long[] open = new long[1];
                try (Admin admin = broker.admin()) {
                    await().atMost(RECOVERY_TIMEOUT).pollInterval(Duration.ofMillis(10)).until(() -> {
                        open[0] = openTransactionRecords(admin, out);
                        return open[0] > 0;
                    });
                    killedAt = System.currentTimeMillis();
                    for (SluiceProcess tm : busy) {
                        kill(tm, taskManagers);
                    }
                }
                broker.proxy().setLatency(Duration.ZERO);
                System.out.printf("KafkaProcessesITCase: seed %d: SIGKILLed %s (%d task manager(s)); %d records of the open"
                        + " transaction were in the log%n", seed, step, busy.size(), open[0]);
                for (int i = 0; i < busy.size(); i++) {
                    taskManagers.add(processes.startTaskManager(Host.MACHINE, SLOTS, Map.of()));
                }
            }
            default -> throw new IllegalStateException("unknown step " + step);
        }
        return killedAt;
    }

    /**
     * How far the end of {@code topic} for {@code read_uncommitted} consumers (the high watermark) is ahead
     * of its end for {@code read_committed} ones (the last stable offset), summed over its partitions:
     * above zero while a transaction with records in the log is open.
     */
    private static long openTransactionRecords(Admin admin, String topic) throws Exception {
        Map<TopicPartition, OffsetSpec> ends = new HashMap<>();
        for (int p = 0; p < 2; p++) {
            ends.put(new TopicPartition(topic, p), OffsetSpec.latest());
        }
        var uncommitted = admin.listOffsets(ends, new ListOffsetsOptions(IsolationLevel.READ_UNCOMMITTED)).all()
                .get(5, TimeUnit.SECONDS);
        var committed = admin.listOffsets(ends, new ListOffsetsOptions(IsolationLevel.READ_COMMITTED)).all()
                .get(5, TimeUnit.SECONDS);
        long ahead = 0;
        for (TopicPartition tp : ends.keySet()) {
            ahead += uncommitted.get(tp).offset() - committed.get(tp).offset();
        }
        return ahead;
    }

    private static void kill(SluiceProcess p, List<SluiceProcess> from) throws InterruptedException {
        p.kill();
        from.remove(p);
    }

    /** The sink vertex's {@code commits} in the job's details, or a missing node. */
    private static JsonNode commits(JsonNode job) {
        for (JsonNode v : job.path("vertices")) {
            if (v.path("commits").isObject()) {
                return v.path("commits");
            }
        }
        return com.fasterxml.jackson.databind.node.MissingNode.getInstance();
    }

    /** Waits until the leader reports the job RUNNING and its sink's current subtasks committed something. */
    private static void awaitCommitting(List<SluiceProcess> jobManagers, String jobId) {
        await().atMost(RECOVERY_TIMEOUT).pollInterval(Duration.ofMillis(100)).until(() -> {
            String l = currentLeader(jobManagers);
            Optional<JsonNode> job = l == null ? Optional.empty() : Rest.job(l, jobId);
            return job.isPresent() && job.get().path("status").asText().equals("RUNNING")
                    && commits(job.get()).path("committed").asLong() > 0;
        });
    }

    /** Waits until {@code more} more checkpoints completed than when it was called. */
    private static void awaitMoreCheckpoints(List<SluiceProcess> jobManagers, String jobId, int more) {
        long[] start = {-1};
        await().atMost(RECOVERY_TIMEOUT).pollInterval(Duration.ofMillis(10)).until(() -> {
            String l = currentLeader(jobManagers);
            long completed = l == null ? -1 : Rest.completedCheckpoints(l, jobId);
            if (completed < 0) {
                return false;
            }
            if (start[0] < 0) {
                start[0] = completed;
            }
            return completed >= start[0] + more;
        });
    }

    private static String awaitLeader(List<SluiceProcess> jobManagers) {
        String[] leader = new String[1];
        await().atMost(RECOVERY_TIMEOUT).pollInterval(Duration.ofMillis(20)).until(() -> {
            leader[0] = currentLeader(jobManagers);
            return leader[0] != null;
        });
        return leader[0];
    }

    private static String currentLeader(List<SluiceProcess> jobManagers) {
        return Rest.leaderAmong(jobManagers.stream().map(SluiceProcess::restUrl).toList());
    }

    /** The task managers that hold slots (of the only job) as the leader at {@code leaderUrl} reports them. */
    private static List<SluiceProcess> busyTaskManagers(String leaderUrl, List<SluiceProcess> taskManagers) throws Exception {
        List<String> busy = new ArrayList<>();
        await().atMost(RECOVERY_TIMEOUT).until(() -> {
            busy.clear();
            Rest.get(leaderUrl, "/v1/overview").filter(a -> a.status() == 200).ifPresent(a ->
                    a.body().path("taskExecutors").forEach(te -> {
                        if (te.path("slotsFree").asInt() < te.path("slots").asInt()) {
                            busy.add(te.path("id").asText());
                        }
                    }));
            return !busy.isEmpty();
        });
        List<SluiceProcess> out = new ArrayList<>();
        for (SluiceProcess tm : taskManagers) {
            Matcher m = TASK_MANAGER_ID.matcher(tm.output());
            if (m.find() && busy.contains(m.group(1))) {
                out.add(tm);
            }
        }
        assertThat(out).as("task managers running tasks: " + busy).isNotEmpty();
        return out;
    }

    /** Waits until {@code url} reports the job RUNNING with a RUNNING transition after {@code sinceMillis}; returns when. */
    private static long awaitRunningSince(String url, String jobId, long sinceMillis) {
        long[] at = new long[1];
        await().atMost(RECOVERY_TIMEOUT).pollInterval(Duration.ofMillis(20)).until(() -> {
            Optional<JsonNode> job = Rest.job(url, jobId);
            if (job.isEmpty() || !job.get().path("status").asText().equals("RUNNING")) {
                return false;
            }
            for (JsonNode t : job.get().path("transitions")) {
                if (t.path("status").asText().equals("RUNNING") && t.path("timestampMillis").asLong() > sinceMillis) {
                    at[0] = t.path("timestampMillis").asLong();
                    return true;
                }
            }
            return false;
        });
        return at[0];
    }
}
