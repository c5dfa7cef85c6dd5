package io.sluice.dispatcher;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sluice.api.StreamExecutionEnvironment;
import io.sluice.checkpoint.CheckpointStorageRegistry;
import io.sluice.config.RestartStrategyConfig.NoRestart;
import io.sluice.graph.JobGraph;
import io.sluice.graph.JobId;
import io.sluice.job.JobResult;
import io.sluice.job.JobStatus;
import io.sluice.jobmaster.JobManagerServices;
import io.sluice.jobmaster.RecoveryBackoff;
import io.sluice.protocol.CheckpointsDeletion;
import io.sluice.protocol.UnknownJobException;
import io.sluice.slots.SlotPool;
import io.sluice.testutil.ManualExecutorService;
import io.sluice.testutil.ManuallyTriggeredMainThreadExecutor;
import io.sluice.testutil.TestingHaServices;
import io.sluice.testutil.TestingLeaderElection;
import io.sluice.testutil.TestingTaskExecutorGateway;
import io.sluice.util.ManualClock;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Nothing left behind by ended jobs, on a Dispatcher driven by manual threads and a {@link ManualClock}:
 * retained checkpoints expire after {@code checkpoints.ended-job-retention} (never while a running job was
 * started from them), are deleted on request (refused while the job runs), a clean-up interrupted between
 * the result write and the deletion is finished when the next leader starts, and a job cancelled while
 * INITIALIZING honours {@code checkpoints.retain-on-cancel: false}. Files are real, on the local disk, and
 * counted.
 */
class EndedJobRetentionTest {
    private static final String CONTENDER = "jm-test";
    private static final RecoveryBackoff BACKOFF = new RecoveryBackoff(Duration.ofMillis(100), Duration.ofSeconds(1), 2.0, 0);
    private static final Duration RETENTION = Duration.ofHours(1);

    @TempDir
    Path root;

    private final ManualClock clock = new ManualClock();
    private final ManuallyTriggeredMainThreadExecutor main = new ManuallyTriggeredMainThreadExecutor("dispatcher-test", clock);
    private final List<ManuallyTriggeredMainThreadExecutor> jobMasterThreads = new CopyOnWriteArrayList<>();
    private final ManualExecutorService io = new ManualExecutorService();
    private final TestingTaskExecutorGateway taskExecutor = new TestingTaskExecutorGateway("te-1", 4);
    private final TestingHaServices ha = new TestingHaServices();
    private final CheckpointStorageRegistry storages = new CheckpointStorageRegistry(new SimpleMeterRegistry());
    private Dispatcher dispatcher;

    @AfterEach
    void tearDown() {
        storages.close();
    }

    private void startLeading(Duration retention) {
        startLeading(new EndedJobRetention(retention));
    }

    private void startLeading(EndedJobRetention retention) {
        JobManagerServices services = new JobManagerServices(ha, storages, new SlotPool(List.of(taskExecutor)),
                (jobId, deployment) -> { }, io, clock, new Random(1), BACKOFF, CONTENDER,
                RecoveryBackoff.UNUSABLE_CHECKPOINTS, name -> {
                    ManuallyTriggeredMainThreadExecutor t = new ManuallyTriggeredMainThreadExecutor(name, clock);
                    jobMasterThreads.add(t);
                    return t;
                });
        dispatcher = new Dispatcher(services, main, retention);
        dispatcher.start();
        runAll();
        ha.setDispatcherLeader(CONTENDER);
        dispatcherElection().grant();
        runAll();
    }

    @Test
    void retainedCheckpointsOfAFailedJobAreDeletedOnlyOnceTheirRetentionHasPassed() throws Exception {
        JobId failed = JobId.generate();
        writeCheckpoints(failed, 3, 4);
        ha.jobResultStore().putResult(result(failed, JobStatus.FAILED, false));
        startLeading(RETENTION);

        advance(RETENTION.minusMinutes(1)); // five sweeps (every 10 minutes) found nothing expired
        assertThat(filesOf(failed)).as("not expired yet").hasSize(2 * 2);

        advance(Duration.ofMinutes(11)); // past the retention, and one sweep interval later
        assertThat(filesOf(failed)).as("every file of the expired checkpoints").isEmpty();
        assertThat(ha.storedResults().get(failed).mayHaveCheckpoints()).as("the result says nothing is left").isFalse();
        assertThat(ha.storedResults().get(failed).status()).isEqualTo(JobStatus.FAILED);
    }

    @Test
    void checkpointsThatExpiredWhileNoJobManagerLedAreDeletedAsSoonAsOneLeads() throws Exception {
        JobId failed = JobId.generate();
        writeCheckpoints(failed, 1);
        ha.jobResultStore().putResult(result(failed, JobStatus.FAILED, false));
        clock.advance(RETENTION.plusMinutes(1));
        startLeading(RETENTION);
        assertThat(filesOf(failed)).isEmpty();
        assertThat(ha.storedResults().get(failed).mayHaveCheckpoints()).isFalse();
    }

    @Test
    void checkpointsThatARunningJobWasStartedFromAreKeptUntilItEnds() throws Exception {
        JobId failed = JobId.generate();
        writeCheckpoints(failed, 7);
        ha.jobResultStore().putResult(result(failed, JobStatus.FAILED, false));
        startLeading(RETENTION);
        JobGraph resumed = graph(true, "latest:" + failed.value());
        dispatcher.submitJob(resumed);
        runAll();

        advance(RETENTION.multipliedBy(3));
        assertThat(filesOf(failed)).as("in use by the resumed job (still INITIALIZING)").hasSize(2);
        CompletableFuture<CheckpointsDeletion> refused = dispatcher.deleteCheckpoints(failed);
        runAll();
        assertThat(refused).isCompletedExceptionally();
        assertThat(causeOf(refused)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("restore-from").hasMessageContaining("Delete them once that job has ended");

        ha.jobElection(resumed.jobId(), CONTENDER).grant();
        main.triggerAll(); // its recovery is queued on the I/O executor
        dispatcher.cancelJob(resumed.jobId());
        runAll();
        assertThat(status(resumed.jobId())).isEqualTo(JobStatus.CANCELED);
        advance(RETENTION);
        assertThat(filesOf(failed)).as("the resumed job ended: expired and deleted").isEmpty();
    }

    @Test
    void deletingTheCheckpointsOfAJobThatHasNotEndedIsRefusedAndOfAnEndedJobDeletesThemAtOnce() throws Exception {
        JobId cancelled = JobId.generate();
        writeCheckpoints(cancelled, 5, 6);
        ha.jobResultStore().putResult(result(cancelled, JobStatus.CANCELED, false));
        startLeading(Duration.ZERO); // never expire
        JobGraph running = graph(true, null);
        writeCheckpoints(running.jobId(), 1);
        dispatcher.submitJob(running);
        runAll();

        CompletableFuture<CheckpointsDeletion> refused = dispatcher.deleteCheckpoints(running.jobId());
        runAll();
        assertThat(causeOf(refused)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("INITIALIZING").hasMessageContaining("Cancel it first");
        assertThat(filesOf(running.jobId())).hasSize(2);

        advance(Duration.ofDays(30));
        assertThat(filesOf(cancelled)).as("retention 0: kept until deleted on request").hasSize(4);
        CompletableFuture<CheckpointsDeletion> deleted = dispatcher.deleteCheckpoints(cancelled);
        runAll();
        assertThat(deleted).isCompleted();
        assertThat(deleted.join().deletedCheckpointIds()).containsExactly(5L, 6L);
        assertThat(deleted.join().location()).isEqualTo(root.toString());
        assertThat(filesOf(cancelled)).isEmpty();
        assertThat(ha.storedResults().get(cancelled).mayHaveCheckpoints()).isFalse();

        CompletableFuture<CheckpointsDeletion> unknown = dispatcher.deleteCheckpoints(JobId.generate());
        runAll();
        assertThat(causeOf(unknown)).isInstanceOf(UnknownJobException.class);
    }

    @Test
    void aCleanUpInterruptedAfterTheResultWasWrittenIsFinishedWhenTheNextLeaderStarts() throws Exception {
        // The previous job manager wrote the result of a FINISHED job and stopped before removing its graph
        // and deleting its checkpoints.
        JobGraph finished = graph(true, null);
        ha.jobGraphStore().putJobGraph(finished);
        writeCheckpoints(finished.jobId(), 9, 10);
        ha.jobResultStore().putResult(result(finished.jobId(), JobStatus.FINISHED, true));
        startLeading(RETENTION);

        assertThat(ha.storedGraphs()).doesNotContainKey(finished.jobId());
        assertThat(filesOf(finished.jobId())).isEmpty();
        assertThat(ha.storedResults().get(finished.jobId()).mayHaveCheckpoints()).isFalse();
        assertThat(status(finished.jobId())).as("still known as ended, never run again").isEqualTo(JobStatus.FINISHED);
        assertThat(jobMasterThreads).isEmpty();
    }

    @Test
    void aCleanUpThatStorageRefusesIsRetriedWithBackoffWhileLeading() throws Exception {
        JobGraph finished = graph(true, null);
        ha.jobGraphStore().putJobGraph(finished);
        writeCheckpoints(finished.jobId(), 2);
        ha.jobResultStore().putResult(result(finished.jobId(), JobStatus.FINISHED, true));
        ha.failResultWrites(2);
        startLeading(RETENTION);
        assertThat(ha.storedResults().get(finished.jobId()).mayHaveCheckpoints()).as("the result write failed").isTrue();

        advance(Duration.ofMillis(100));
        advance(Duration.ofMillis(200));
        assertThat(ha.storedResults().get(finished.jobId()).mayHaveCheckpoints()).isFalse();
        assertThat(filesOf(finished.jobId())).isEmpty();
    }

    @Test
    void cancellingWhileInitializingWithRetainOnCancelFalseDeletesTheJobsCheckpoints() throws Exception {
        startLeading(RETENTION);
        JobGraph job = graph(false, null);
        writeCheckpoints(job.jobId(), 3, 4); // from an earlier run of this job, before a job manager failover
        cancelWhileInitializing(job);

        assertThat(status(job.jobId())).isEqualTo(JobStatus.CANCELED);
        assertThat(filesOf(job.jobId())).as("checkpoints.retain-on-cancel: false").isEmpty();
        assertThat(ha.storedResults().get(job.jobId()).mayHaveCheckpoints()).isFalse();
        assertThat(jobMasterThreads).as("no job master ever started").isEmpty();
    }

    @Test
    void cancellingWhileInitializingKeepsTheCheckpointsByDefaultAndRecordsWhereTheyAre() throws Exception {
        startLeading(RETENTION);
        JobGraph job = graph(true, null);
        writeCheckpoints(job.jobId(), 3);
        cancelWhileInitializing(job);

        assertThat(filesOf(job.jobId())).hasSize(2);
        JobResult stored = ha.storedResults().get(job.jobId());
        assertThat(stored.checkpointsLocation()).isEqualTo(root.toString());
        assertThat(stored.deleteCheckpoints()).isFalse();
    }

    @Test
    void theDefaultsRememberEndedJobsForADayAndAThousandOfThem() {
        EndedJobRetention defaults = EndedJobRetention.from(new io.sluice.config.Configuration());
        assertThat(defaults).isEqualTo(EndedJobRetention.defaults());
        assertThat(defaults.jobRetention()).isEqualTo(Duration.ofDays(1));
        assertThat(defaults.maxEndedJobs()).isEqualTo(1000);
        assertThat(defaults.checkpointRetention()).isEqualTo(Duration.ofDays(7));
    }

    @Test
    void anEndedJobIsForgottenInMemoryAndInTheHaServicesOnceItsRetentionHasPassed() throws Exception {
        JobId finished = JobId.generate();
        ha.jobResultStore().putResult(new JobResult(finished, "ended", JobStatus.FINISHED, clock.currentTimeMillis(),
                null, null));
        io.sluice.checkpoint.Savepoint savepoint = new io.sluice.checkpoint.Savepoint(finished, 7,
                root.resolve("savepoint-1").toString(), 1, 2, 3);
        ha.savepointStore().addSavepoint(savepoint, 100);
        startLeading(new EndedJobRetention(RETENTION, Duration.ofHours(2), 1000));

        advance(Duration.ofMinutes(115));
        assertThat(status(finished)).as("remembered within its retention").isEqualTo(JobStatus.FINISHED);
        assertThat(ha.storedResults()).containsKey(finished);

        advance(Duration.ofMinutes(11)); // past the retention and one sweep (every 10 minutes) later
        assertThat(ha.storedResults()).as("its result is removed").doesNotContainKey(finished);
        CompletableFuture<List<io.sluice.checkpoint.Savepoint>> savepoints = dispatcher.listSavepoints(finished);
        runAll();
        assertThat(savepoints.join()).as("its savepoint stays listed").containsExactly(savepoint);
        CompletableFuture<?> details = dispatcher.requestJobDetails(finished);
        runAll();
        assertThat(causeOf(details)).isInstanceOf(UnknownJobException.class)
                .hasMessageContaining("jobmanager.ended-jobs.retention");
        assertThat(dispatcher.listJobs().join()).as("not listed any more").isEmpty();
    }

    @Test
    void anEndedJobWithRetainedCheckpointsIsForgottenOnlyOnceTheyAreDeleted() throws Exception {
        JobId failed = JobId.generate();
        writeCheckpoints(failed, 1);
        ha.jobResultStore().putResult(result(failed, JobStatus.FAILED, false));
        startLeading(new EndedJobRetention(Duration.ofHours(3), Duration.ofHours(1), 1000));

        advance(Duration.ofMinutes(175));
        assertThat(status(failed)).as("its checkpoints are kept, so is the job").isEqualTo(JobStatus.FAILED);
        assertThat(filesOf(failed)).hasSize(2);

        advance(Duration.ofMinutes(11)); // the checkpoints expire and are deleted
        assertThat(filesOf(failed)).isEmpty();
        advance(Duration.ofMinutes(10)); // the next sweep forgets the job
        assertThat(ha.storedResults()).doesNotContainKey(failed);
        CompletableFuture<?> details = dispatcher.requestJobDetails(failed);
        runAll();
        assertThat(causeOf(details)).isInstanceOf(UnknownJobException.class);
    }

    @Test
    void beyondTheMaximumCountTheJobsThatEndedFirstAreForgottenAsSoonAsAnotherEnds() throws Exception {
        JobId withCheckpoints = JobId.generate(); // ended first, but its checkpoints are kept: never forgotten for the count
        writeCheckpoints(withCheckpoints, 1);
        ha.jobResultStore().putResult(result(withCheckpoints, JobStatus.FAILED, false));
        List<JobId> finished = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            clock.advance(Duration.ofSeconds(1));
            JobId id = JobId.generate();
            finished.add(id);
            ha.jobResultStore().putResult(new JobResult(id, "ended", JobStatus.FINISHED, clock.currentTimeMillis(),
                    null, null));
        }
        startLeading(new EndedJobRetention(RETENTION, Duration.ofDays(1), 3));
        assertThat(ha.storedResults()).as("four ended jobs, one beyond the count: the oldest without checkpoints goes")
                .containsKeys(withCheckpoints, finished.get(1), finished.get(2)).doesNotContainKey(finished.get(0));

        JobGraph job = graph(false, null); // ends CANCELED, its checkpoints deleted
        cancelWhileInitializing(job);

        assertThat(status(job.jobId())).isEqualTo(JobStatus.CANCELED);
        assertThat(ha.storedResults()).as("at its end, before any sweep")
                .containsKeys(withCheckpoints, finished.get(2), job.jobId()).doesNotContainKey(finished.get(1));
        assertThat(dispatcher.listJobs().join()).hasSize(3);
    }

    // ------------------------------------------------------------------ helpers

    private JobResult result(JobId id, JobStatus status, boolean delete) {
        return new JobResult(id, "ended", status, clock.currentTimeMillis(), null, null, root.toString(), delete);
    }

    private JobGraph graph(boolean retainOnCancel, String restoreFrom) {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.create().setParallelism(2)
                .setRestartStrategy(new NoRestart()).setCheckpointDir(root.toString())
                .setRetainCheckpointsOnCancel(retainOnCancel);
        if (restoreFrom != null) {
            env.restoreFrom(restoreFrom);
        }
        env.fromSequence(0, 100).keyBy(v -> v % 4).map(v -> v).addSink(v -> { });
        return env.buildJobGraph("retention-test");
    }

    /**
     * Submits {@code job} and cancels it while it is INITIALIZING: its recovery is queued on the I/O executor, not
     * run, so no job master starts.
     */
    private void cancelWhileInitializing(JobGraph job) {
        dispatcher.submitJob(job);
        runAll();
        ha.jobElection(job.jobId(), CONTENDER).grant();
        main.triggerAll();
        assertThat(jobMasterThreads).as("no job master started").isEmpty();
        dispatcher.cancelJob(job.jobId());
        runAll();
    }

    /** A metadata file and a state file per checkpoint, as checkpoint storage lays them out. */
    private void writeCheckpoints(JobId job, long... ids) throws IOException {
        for (long id : ids) {
            Path dir = Files.createDirectories(root.resolve(job.value()).resolve("chk-" + id));
            Files.write(dir.resolve("_metadata"), new byte[] {1, 2, 3});
            Files.write(dir.resolve("0-0.state"), new byte[] {4, 5});
        }
    }

    /** Every regular file under the job's checkpoint directory. */
    private List<Path> filesOf(JobId job) throws IOException {
        Path dir = root.resolve(job.value());
        if (!Files.exists(dir)) {
            return List.of();
        }
        try (Stream<Path> files = Files.walk(dir)) {
            return files.filter(Files::isRegularFile).toList();
        }
    }

    private void advance(Duration d) {
        main.advanceTime(d);
        runAll();
    }

    private JobStatus status(JobId id) {
        var details = dispatcher.requestJobDetails(id);
        runAll();
        return details.join().status();
    }

    private static Throwable causeOf(CompletableFuture<?> f) {
        assertThat(f).isCompletedExceptionally();
        try {
            f.join();
            throw new AssertionError("not failed");
        } catch (java.util.concurrent.CompletionException e) {
            return e.getCause();
        }
    }

    private TestingLeaderElection dispatcherElection() {
        return ha.dispatcherElection(CONTENDER);
    }

    private void runAll() {
        int ran;
        do {
            ran = main.triggerAll() + io.triggerAll();
            for (ManuallyTriggeredMainThreadExecutor t : new ArrayList<>(jobMasterThreads)) {
                ran += t.triggerAll();
            }
        } while (ran > 0);
    }
}
