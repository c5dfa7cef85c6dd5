package io.sluice.compare.sluice;

import io.sluice.compare.LatencySummary;
import io.sluice.compare.Plan;
import io.sluice.compare.Results;
import io.sluice.compare.Scenario;
import io.sluice.compare.StatusProbe;
import io.sluice.protocol.DispatcherGateway;
import io.sluice.graph.JobId;
import io.sluice.job.JobStatus;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

/**
 * {@link Scenario#STATUS_DURING_STALL}: job-status queries ({@link DispatcherGateway#requestJobDetails},
 * the one status call of Sluice's gateway) every {@code plan.queryPeriod()} for
 * {@code plan.statusWindow()} while a recovery meets stalled storage or slow ZooKeeper. Four variants,
 * each on a fresh cluster with a job keeping {@code plan.statusRetained()} checkpoints that runs
 * until that many completed: the fault, the probe, then heal, a bounded check that the job runs
 * again (reported, not required), cancel.
 */
final class StatusDuringStall implements ScenarioRunner {
    /** How long the job may take to run again after the fault is removed before the harness says so. */
    static final Duration BACK_TO_RUNNING_WAIT = Duration.ofSeconds(60);
    static final Duration CHECKPOINTS_WAIT = Duration.ofSeconds(120);

    private static final String ID = Scenario.STATUS_DURING_STALL.id();

    @Override
    public void run(HarnessContext context, Results rows, Map<String, String> notes) throws Exception {
        Plan plan = context.plan();
        record(context, rows, plan.statusTaskFailoverStalled(), taskFailoverStalled(context));
        record(context, rows, plan.statusJmRestartStalled(), jobManagerRestartStalled(context));
        record(context, rows, plan.statusZkSlow(), zooKeeperSlow(context));
        record(context, rows, plan.statusExtraCheckpoints(), extraCheckpoints(context, notes));
    }

    /** A status window's latencies and the checkpoint metadata reads the job manager made during it. */
    private record Window(LatencySummary summary, long metadataReads) {
    }

    private static void record(HarnessContext context, Results rows, String variant, Window window) {
        window.summary().addTo(rows, Scenario.STATUS_DURING_STALL, variant);
        rows.add(Scenario.STATUS_DURING_STALL, variant, Scenario.Metric.METADATA_READS, window.metadataReads());
        context.progress().line(ID, variant, "%s; %d metadata reads during the window", window.summary(),
                window.metadataReads());
    }

    /** (a) Storage hangs (every call), then a keyed task fails: the restarted tasks block restoring their state. */
    private Window taskFailoverStalled(HarnessContext context) throws Exception {
        Plan plan = context.plan();
        String variant = plan.statusTaskFailoverStalled();
        StorageFaults faults = new StorageFaults();
        try (KeyedProbe probe = KeyedProbe.create();
             RecoveryCluster cluster = RecoveryCluster.start(context.zooKeeper(), context.newClusterId("status-stalled"),
                     context.newDir("status-stalled"), faults)) {
            try {
                JobId id = runUntilRetained(cluster, plan, probe, variant);
                DispatcherGateway dispatcher = cluster.dispatcher();
                faults.hang();
                long readsBefore = cluster.storage().metadataReads();
                long faultAt = System.nanoTime();
                probe.failNextRecordOf(0);
                LatencySummary summary = probeStatus(plan, dispatcher, id);
                long reads = cluster.storage().metadataReads() - readsBefore;
                context.progress().line(ID, variant, "storage calls blocked at the end of the window: %d",
                        faults.blockedCalls());
                faults.heal();
                reportBackToRunning(context, variant, cluster, id, probe, faultAt);
                cluster.cancel(id);
                return new Window(summary, reads);
            } finally {
                faults.heal();
            }
        }
    }

    /**
     * (b) The job manager stops keeping its HA data; storage hangs; a new job manager starts on the same
     * ZooKeeper and checkpoint directory, and is asked for the job's status from the moment its gateway
     * exists, while its recovery blocks on storage.
     */
    private Window jobManagerRestartStalled(HarnessContext context) throws Exception {
        Plan plan = context.plan();
        String variant = plan.statusJmRestartStalled();
        String clusterId = context.newClusterId("status-jm-restart");
        Path dir = context.newDir("status-jm-restart");
        try (KeyedProbe probe = KeyedProbe.create()) {
            JobId id;
            try (RecoveryCluster first = RecoveryCluster.start(context.zooKeeper(), clusterId, dir, new StorageFaults())) {
                id = runUntilRetained(first, plan, probe, variant);
            }
            StorageFaults faults = new StorageFaults();
            faults.hang();
            long startedAt = System.nanoTime();
            try (RecoveryCluster second = RecoveryCluster.start(context.zooKeeper(), clusterId, dir, faults)) {
                try {
                    DispatcherGateway jobManager = second.jobManager();
                    LatencySummary summary = probeStatus(plan, jobManager, id);
                    long reads = second.storage().metadataReads(); // the new job manager's, from its start
                    context.progress().line(ID, variant, "storage calls blocked at the end of the window: %d",
                            faults.blockedCalls());
                    faults.heal();
                    reportBackToRunning(context, variant, second, id, probe, startedAt);
                    second.cancel(id);
                    return new Window(summary, reads);
                } finally {
                    faults.heal();
                }
            }
        }
    }

    /** (c) Every ZooKeeper round trip takes {@code plan.zkLatency()} longer while a keyed task fails over. */
    private Window zooKeeperSlow(HarnessContext context) throws Exception {
        Plan plan = context.plan();
        String variant = plan.statusZkSlow();
        ZooKeeperSetup zk = context.zooKeeper();
        try (KeyedProbe probe = KeyedProbe.create();
             RecoveryCluster cluster = RecoveryCluster.start(zk, context.newClusterId("status-zk-slow"),
                     context.newDir("status-zk-slow"), new StorageFaults())) {
            try {
                JobId id = runUntilRetained(cluster, plan, probe, variant);
                DispatcherGateway dispatcher = cluster.dispatcher();
                zk.proxy().setDelay(plan.zkLatency());
                long readsBefore = cluster.storage().metadataReads();
                long faultAt = System.nanoTime();
                probe.failNextRecordOf(0);
                LatencySummary summary = probeStatus(plan, dispatcher, id);
                long reads = cluster.storage().metadataReads() - readsBefore;
                zk.proxy().setDelay(Duration.ZERO);
                reportBackToRunning(context, variant, cluster, id, probe, faultAt);
                cluster.cancel(id);
                return new Window(summary, reads);
            } finally {
                zk.proxy().setDelay(Duration.ZERO);
            }
        }
    }

    /**
     * (d) Storage reads take {@code plan.statusStorageLatency()}, and ZooKeeper holds checkpoints the job
     * manager's memory lacks (complete copies, with pointers written by another ZooKeeper session, see
     * {@link ExtraCheckpoints}), while a keyed task fails over.
     */
    private Window extraCheckpoints(HarnessContext context, Map<String, String> notes) throws Exception {
        Plan plan = context.plan();
        String variant = plan.statusExtraCheckpoints();
        int retained = plan.statusRetained();
        String clusterId = context.newClusterId("status-extra");
        StorageFaults faults = new StorageFaults();
        try (KeyedProbe probe = KeyedProbe.create();
             RecoveryCluster cluster = RecoveryCluster.start(context.zooKeeper(), clusterId,
                     context.newDir("status-extra"), faults)) {
            try {
                JobId id = cluster.submit(Jobs.recoveryJob(plan, retained, cluster.checkpointDir(), probe,
                        "status: " + variant));
                // Three times N completed: N retained, N subsumed (their discards may still run), N ids free below.
                cluster.awaitCompletedCheckpoints(id, 3L * retained, CHECKPOINTS_WAIT);
                try (ExtraCheckpoints extra = ExtraCheckpoints.pin(context.zooKeeper(), clusterId, id,
                        cluster.checkpointDir(), retained)) {
                    DispatcherGateway dispatcher = cluster.dispatcher();
                    faults.setReadLatency(plan.statusStorageLatency());
                    long readsBefore = cluster.storage().metadataReads();
                    long faultAt = System.nanoTime();
                    probe.failNextRecordOf(0);
                    LatencySummary summary = probeStatus(plan, dispatcher, id);
                    long reads = cluster.storage().metadataReads() - readsBefore;
                    faults.heal();
                    reportBackToRunning(context, variant, cluster, id, probe, faultAt);
                    boolean stillThere = extra.allPresent();
                    cluster.cancel(id);
                    notes.put("note-status-extra", extra.describe() + " Sluice's task failover restores from the"
                            + " latest checkpoint it holds in memory and never re-reads the pointer store, so they"
                            + " had no effect: " + reads + " checkpoint metadata reads during the failover and the"
                            + " status window" + (stillThere ? "" : " (some copies were gone by the end)") + ".");
                    context.progress().line(ID, variant, "%s Metadata reads during the failover and the window: %d",
                            extra.describe(), reads);
                    return new Window(summary, reads);
                }
            } finally {
                faults.heal();
            }
        }
    }

    /** Submits the status job (N = {@code plan.statusRetained()}) and waits for N completed checkpoints. */
    private static JobId runUntilRetained(RecoveryCluster cluster, Plan plan, KeyedProbe probe, String variant)
            throws Exception {
        JobId id = cluster.submit(Jobs.recoveryJob(plan, plan.statusRetained(), cluster.checkpointDir(), probe,
                "status: " + variant));
        cluster.awaitCompletedCheckpoints(id, plan.statusRetained(), CHECKPOINTS_WAIT);
        return id;
    }

    /** Queries status every {@code plan.queryPeriod()} for {@code plan.statusWindow()}. */
    private static LatencySummary probeStatus(Plan plan, DispatcherGateway dispatcher, JobId id)
            throws InterruptedException {
        StatusProbe probe = new StatusProbe(() -> dispatcher.requestJobDetails(id), plan.queryPeriod()).start();
        Thread.sleep(plan.statusWindow().toMillis()); // the measurement window itself
        return probe.stop();
    }

    /**
     * After the fault is removed: waits (bounded) until a keyed instance started after {@code faultAt}
     * processes records and the job is RUNNING, and says how long that took; a job that does not get
     * there is reported on stderr, not failed.
     */
    private static void reportBackToRunning(HarnessContext context, String variant, RecoveryCluster cluster, JobId id,
                                            KeyedProbe probe, long faultAt) {
        long healedAt = System.nanoTime();
        try {
            KeyedProbe.FirstRecord first = probe.awaitFirstRecord(faultAt, r -> true, BACK_TO_RUNNING_WAIT,
                    "a restarted keyed instance to process records");
            DispatcherGateway dispatcher = cluster.dispatcher();
            Waits.until("job " + id + " to be RUNNING", BACK_TO_RUNNING_WAIT,
                    () -> Waits.details(dispatcher, id).status() == JobStatus.RUNNING);
            context.progress().line(ID, variant, "RUNNING and processing again %s after the fault (%s the heal),"
                    + " restored state: %s", Progress.ms(first.nanos() - faultAt),
                    first.nanos() - healedAt > 0 ? "after" : "before", first.restored() ? "yes" : "no");
        } catch (Exception e) {
            context.progress().problem("%s %s: the job was not back to RUNNING within %d s of the heal: %s", ID,
                    variant, BACK_TO_RUNNING_WAIT.toSeconds(), e.getMessage());
        }
    }
}
