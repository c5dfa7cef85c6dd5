package io.sluice.jobmaster.runner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sluice.api.StreamExecutionEnvironment;
import io.sluice.checkpoint.CheckpointStorageRegistry;
import io.sluice.checkpoint.CompletedCheckpoint;
import io.sluice.checkpoint.CompletedCheckpointStore;
import io.sluice.checkpoint.StandaloneCompletedCheckpointStore;
import io.sluice.job.JobResult;
import io.sluice.jobmaster.JobManagerServices;
import io.sluice.jobmaster.RecoveryBackoff;
import io.sluice.job.JobStatus;
import io.sluice.protocol.RecoveryStatus;
import io.sluice.slots.SlotPool;
import io.sluice.config.RestartStrategyConfig.NoRestart;
import io.sluice.graph.JobGraph;
import io.sluice.ha.CheckpointRecoveryException;
import io.sluice.restart.CrashLoop;
import io.sluice.storage.StorageException;
import io.sluice.job.ExecutionAttemptId;
import io.sluice.job.ExecutionState;
import io.sluice.protocol.TaskExecutionState;
import io.sluice.testutil.ManualExecutorService;
import io.sluice.testutil.ManuallyTriggeredMainThreadExecutor;
import io.sluice.testutil.TestingHaServices;
import io.sluice.testutil.TestingLeaderElection;
import io.sluice.testutil.TestingTaskExecutorGateway;
import io.sluice.util.ManualClock;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The job manager runner's ordering rules, driven step by step from the test thread: the runner's
 * (Dispatcher's) main thread and every job master's main thread are manually triggered on one
 * {@link ManualClock}, the I/O executor is manual, the elections are granted and revoked by the
 * test, and task states are reported by the test through the job master that deployed them.
 * Backoffs run without jitter so that the times are exact.
 */
@Timeout(30)
class JobManagerRunnerTest {
    private static final RecoveryBackoff BACKOFF = new RecoveryBackoff(Duration.ofMillis(100), Duration.ofSeconds(1), 2.0, 0);
    private static final RecoveryBackoff SLOW = new RecoveryBackoff(Duration.ofSeconds(5), Duration.ofMinutes(1), 2.0, 0);
    private static final String CONTENDER = "jm-test";

    @TempDir
    Path root;

    private final ManualClock clock = new ManualClock();
    private final ManuallyTriggeredMainThreadExecutor main = new ManuallyTriggeredMainThreadExecutor("dispatcher-test", clock);
    private final List<ManuallyTriggeredMainThreadExecutor> jobMasterThreads = new CopyOnWriteArrayList<>();
    private final ManualExecutorService io = new ManualExecutorService();
    private final TestingTaskExecutorGateway taskExecutor = new TestingTaskExecutorGateway("te-1", 4);
    private final TestingHaServices ha = new TestingHaServices();
    private final AtomicInteger recoveries = new AtomicInteger();
    private final List<String> shutdowns = new CopyOnWriteArrayList<>();
    private CheckpointStorageRegistry storages;
    private JobGraph graph;
    private JobManagerRunner runner;

    @BeforeEach
    void setUp() {
        storages = new CheckpointStorageRegistry(new SimpleMeterRegistry());
        ha.onRecover((jobId, maxRetained, storage, allow, listener) -> {
            recoveries.incrementAndGet();
            listener.pointersFound(0);
            return recording(new StandaloneCompletedCheckpointStore(jobId, maxRetained, storage));
        });
    }

    @AfterEach
    void tearDown() {
        storages.close();
    }

    // ------------------------------------------------------------------ cancel wins

    @Test
    void cancelQueuedBeforeTheRecoveryCallbackWinsAndNoJobMasterStarts() {
        createRunner(false);
        UUID s = grant();
        assertThat(io.numQueued()).as("recovery attempt queued on the I/O executor").isEqualTo(1);

        // The cancel reaches the main thread while the attempt's I/O is still running...
        main.execute(() -> runner.cancel());
        // ...then the I/O completes, and its callback queues behind the cancel.
        assertThat(io.triggerNext()).isTrue();
        assertThat(recoveries.get()).isEqualTo(1);
        runAll();

        assertThat(jobMasterThreads).as("no job master after CANCELED").isEmpty();
        assertThat(taskExecutor.submitted()).isEmpty();
        assertThat(runner.status()).isEqualTo(JobStatus.CANCELED);
        assertThat(runner.resultFuture()).isCompleted();
        assertThat(result().status()).isEqualTo(JobStatus.CANCELED);
        assertThat(ha.storedResults()).containsKey(graph.jobId());
        assertThat(s).isNotNull();
    }

    @Test
    void cancelWhileARetryIsScheduledWinsAndTheRetryNeverRuns() {
        createRunner(false);
        AtomicInteger failures = new AtomicInteger(1);
        ha.onRecover((jobId, maxRetained, storage, allow, listener) -> {
            recoveries.incrementAndGet();
            if (failures.getAndDecrement() > 0) {
                throw new StorageException("Checkpoint storage test://ckp unreachable (Connection refused)");
            }
            return new StandaloneCompletedCheckpointStore(jobId, maxRetained, storage);
        });
        grant();
        runIo();
        assertThat(main.numScheduled()).as("a retry is scheduled").isEqualTo(1);
        assertThat(onMain(runner::requestJobDetails).recovery().lastError()).contains("Connection refused");

        onMain(runner::cancel);
        main.advanceTime(Duration.ofSeconds(10));
        runAll();

        assertThat(recoveries.get()).as("the retry never ran").isEqualTo(1);
        assertThat(jobMasterThreads).isEmpty();
        assertThat(result().status()).isEqualTo(JobStatus.CANCELED);
    }

    @Test
    void cancelAfterTheRetryFiredButBeforeItsCallbackWins() {
        createRunner(false);
        AtomicInteger failures = new AtomicInteger(1);
        ha.onRecover((jobId, maxRetained, storage, allow, listener) -> {
            recoveries.incrementAndGet();
            if (failures.getAndDecrement() > 0) {
                throw new StorageException("Checkpoint storage test://ckp unreachable (Connection refused)");
            }
            return new StandaloneCompletedCheckpointStore(jobId, maxRetained, storage);
        });
        grant();
        runIo();
        main.advanceTime(Duration.ofMillis(100)); // the retry fires: attempt 2 queued on I/O
        assertThat(io.numQueued()).isEqualTo(1);
        main.execute(() -> runner.cancel());
        io.triggerNext(); // attempt 2 succeeds; its callback queues behind the cancel
        runAll();

        assertThat(recoveries.get()).isEqualTo(2);
        assertThat(jobMasterThreads).isEmpty();
        assertThat(result().status()).isEqualTo(JobStatus.CANCELED);
    }

    // ------------------------------------------------------------------ grant and revoke on one chain

    @Test
    void aReGrantStartsTheNewJobMasterOnlyAfterTheOldOnesTasksEnded() {
        createRunner(false);
        grant();
        runAll();
        assertThat(jobMasterThreads).hasSize(1);
        List<ExecutionAttemptId> first = List.copyOf(taskExecutor.submittedIds());
        assertThat(first).hasSize(graph.numberOfSubtasks());
        reportAll(first, ExecutionState.RUNNING);
        assertThat(runner.status()).isEqualTo(JobStatus.RUNNING);

        // ZooKeeper SUSPENDED -> RECONNECTED: revoke, then a new grant at once.
        election().revoke();
        election().grant();
        runAll();

        assertThat(taskExecutor.cancelled()).as("the old tasks are being cancelled").containsExactlyInAnyOrderElementsOf(first);
        assertThat(jobMasterThreads).as("no second job master while the old tasks run").hasSize(1);
        assertThat(taskExecutor.submitted()).hasSize(first.size());
        assertThat(recoveries.get()).as("recovery of the new session waits too").isEqualTo(1);
        assertThat(onMain(runner::requestJobDetails).recovery().phase()).contains("previous leadership");

        reportAll(first.subList(0, first.size() - 1), ExecutionState.CANCELED);
        runAll();
        assertThat(jobMasterThreads).as("one old task still runs").hasSize(1);

        reportAll(first.subList(first.size() - 1, first.size()), ExecutionState.CANCELED);
        runAll();

        assertThat(recoveries.get()).isEqualTo(2);
        assertThat(jobMasterThreads).hasSize(2);
        assertThat(taskExecutor.submitted()).hasSize(2 * first.size());
        List<ExecutionAttemptId> second = taskExecutor.submittedIds().subList(first.size(), 2 * first.size());
        reportAll(second, ExecutionState.RUNNING);
        assertThat(runner.status()).isEqualTo(JobStatus.RUNNING);
    }

    @Test
    void cancelWhileTheOldJobMasterSuspendsEndsTheJobWithoutANewJobMaster() {
        createRunner(false);
        grant();
        runAll();
        List<ExecutionAttemptId> first = List.copyOf(taskExecutor.submittedIds());
        reportAll(first, ExecutionState.RUNNING);
        election().revoke();
        election().grant();
        runAll();

        onMain(runner::cancel);
        reportAll(first, ExecutionState.CANCELED);
        runAll();

        assertThat(jobMasterThreads).hasSize(1);
        assertThat(result().status()).isEqualTo(JobStatus.CANCELED);
    }

    // ------------------------------------------------------------------ states, the chain, stale callbacks

    @Test
    void grantRevokeGrantBeforeTheMainThreadRunsRecoversOnlyTheLastSession() {
        createRunner(false);
        UUID first = election().grant();
        election().revoke();
        UUID second = election().grant();
        runIo(); // nothing on I/O yet; the main thread handles grant, revoke, grant in order
        runAll();

        assertThat(recoveries.get()).as("the first session's recovery was skipped or abandoned").isEqualTo(1);
        assertThat(jobMasterThreads).hasSize(1);
        assertThat(runner.state()).isInstanceOf(Leading.class);
        assertThat(((Leading) runner.state()).jobMaster().session()).isEqualTo(second).isNotEqualTo(first);
    }

    @Test
    void aRecoveryCallbackOfARevokedSessionIsIgnored() {
        createRunner(false);
        grant();
        assertThat(io.numQueued()).as("the attempt's I/O waits").isEqualTo(1);
        election().revoke();
        main.triggerAll();
        assertThat(runner.state()).isInstanceOf(NotLeading.class);

        // The attempt was cancelled before it ran: running the queue does nothing, and no job master starts.
        runAll();
        assertThat(recoveries.get()).isZero();
        assertThat(jobMasterThreads).isEmpty();
        assertThat(runner.status()).isEqualTo(JobStatus.INITIALIZING);
    }

    @Test
    void aRecoveryThatCompletesAfterItsSessionWasRevokedStartsNoJobMaster() {
        createRunner(false);
        grant();
        // The I/O runs (the read was not interrupted in time) and completes after the revoke reached the main thread.
        election().revoke();
        io.triggerAll();
        main.triggerAll();
        runAll();
        assertThat(recoveries.get()).as("the attempt ran").isEqualTo(1);
        assertThat(jobMasterThreads).as("its callback was stale").isEmpty();
        assertThat(runner.state()).isInstanceOf(NotLeading.class);

        grant();
        runAll();
        assertThat(jobMasterThreads).hasSize(1);
        reportAll(taskExecutor.submittedIds(), ExecutionState.RUNNING);
        assertThat(runner.status()).isEqualTo(JobStatus.RUNNING);
    }

    @Test
    void illegalAndStaleTransitionsAreRefused() {
        createRunner(false);
        RunnerState notLeading = runner.state();
        AtomicReference<Throwable> illegal = new AtomicReference<>();
        main.execute(() -> {
            try {
                runner.transition(notLeading, new Ended(JobResult.of(graph.jobId(), graph.name(), JobStatus.FINISHED,
                        0, null), null));
            } catch (IllegalStateException e) {
                illegal.set(e);
            }
        });
        main.triggerAll();
        assertThat(illegal.get()).hasMessageContaining("illegal transition NotLeading -> Ended refused");
        assertThat(runner.state()).isSameAs(notLeading);

        grant();
        assertThat(runner.state()).isInstanceOf(Recovering.class);
        AtomicReference<Throwable> stale = new AtomicReference<>();
        main.execute(() -> {
            try {
                runner.transition(notLeading, new Closed(null, null, false));
            } catch (IllegalStateException e) {
                stale.set(e);
            }
        });
        main.triggerAll();
        assertThat(stale.get()).hasMessageContaining("NotLeading is no longer the current state (Recovering)");
        assertThat(runner.state()).isInstanceOf(Recovering.class);
    }

    @Test
    void aTransitionStartedWhileAnotherRunsIsRefused() {
        // A job master thread whose execute() tries to move the runner on while the runner enters Leading.
        AtomicReference<Throwable> reentrant = new AtomicReference<>();
        createRunner(false, null, name -> {
            ManuallyTriggeredMainThreadExecutor t = new ManuallyTriggeredMainThreadExecutor(name, clock);
            jobMasterThreads.add(t);
            return new io.sluice.rpc.MainThreadExecutor() {
                @Override
                public void execute(Runnable command) {
                    if (reentrant.get() == null) {
                        try {
                            runner.transition(runner.state(), new Closed(null, null, false));
                        } catch (IllegalStateException e) {
                            reentrant.set(e);
                        }
                    }
                    t.execute(command);
                }

                @Override
                public ScheduledTask schedule(Runnable command, Duration delay) {
                    return t.schedule(command, delay);
                }

                @Override
                public boolean isMainThread() {
                    return t.isMainThread();
                }

                @Override
                public String componentName() {
                    return name;
                }
            };
        });
        grant();
        runAll();
        assertThat(reentrant.get()).hasMessageContaining("re-entrant transition Leading -> Closed refused");
        assertThat(runner.state()).isInstanceOf(Leading.class);
    }

    @Test
    void aCancelBeforeTheGrantIsHeldAndEndsTheJobCanceledOnceGranted() {
        // A cancel sent right after a submission reached the runner before its (asynchronous) grant and
        // was refused with "not led by this job manager" (JarJobITCase in CI).
        createRunner(false);
        AtomicReference<java.util.concurrent.CompletableFuture<?>> f = new AtomicReference<>();
        main.execute(() -> f.set(runner.cancel()));
        main.triggerAll();
        assertThat(f.get()).as("held until the grant").isNotDone();
        assertThat(runner.status()).isEqualTo(JobStatus.INITIALIZING);

        grant();
        runAll();
        assertThat(f.get()).isCompleted();
        assertThat(jobMasterThreads).as("no job master for a cancelled job").isEmpty();
        assertThat(taskExecutor.submitted()).isEmpty();
        assertThat(result().status()).isEqualTo(JobStatus.CANCELED);
    }

    @Test
    void aCancelHeldWhileNotLeadingFailsNamingTheJobIfTheRunnerClosesFirst() {
        createRunner(false);
        AtomicReference<java.util.concurrent.CompletableFuture<?>> f = new AtomicReference<>();
        main.execute(() -> f.set(runner.cancel()));
        main.triggerAll();
        main.execute(() -> runner.close());
        runAll();
        assertThat(f.get()).isCompletedExceptionally();
        assertThatThrownBy(() -> f.get().join()).hasMessageContaining("was not cancelled")
                .hasMessageContaining(graph.jobId().toString());
    }

    // ------------------------------------------------------------------ result writes

    @Test
    void aFailedResultWriteIsRetriedAndTheGraphRemovedOnlyOnceTheResultIsDurable() {
        createRunner(false);
        ha.storedGraphs().put(graph.jobId(), graph);
        ha.failResultWrites(3);
        grant();
        runAll();
        List<ExecutionAttemptId> round = List.copyOf(taskExecutor.submittedIds());
        reportAll(round, ExecutionState.RUNNING);
        reportAll(round, ExecutionState.FINISHED);

        assertThat(ha.resultWriteAttempts()).isEqualTo(1);
        assertThat(runner.status()).isEqualTo(JobStatus.FINISHED);
        assertThat(runner.resultFuture()).as("not done before the result is durable").isNotDone();
        assertThat(ha.storedGraphs()).as("graph kept while the result is not recorded").containsKey(graph.jobId());
        assertThat(shutdowns).as("checkpoints untouched until the result is durable").isEmpty();
        RecoveryStatus shown = onMain(runner::requestJobDetails).recovery();
        assertThat(shown.phase()).contains("could not record the job result (FINISHED)").contains("retrying in 100 ms");
        assertThat(shown.lastError()).contains("Connection refused");

        main.advanceTime(Duration.ofMillis(100));
        runIo();
        main.advanceTime(Duration.ofMillis(200));
        runIo();
        assertThat(ha.resultWriteAttempts()).isEqualTo(3);
        assertThat(runner.resultFuture()).isNotDone();
        main.advanceTime(Duration.ofMillis(400));
        runAll();

        // The fourth attempt recorded the result; the fifth write records that its checkpoints are deleted.
        assertThat(ha.resultWriteAttempts()).isEqualTo(5);
        assertThat(ha.storedResults().get(graph.jobId()).status()).isEqualTo(JobStatus.FINISHED);
        assertThat(ha.storedResults().get(graph.jobId()).mayHaveCheckpoints()).isFalse();
        assertThat(ha.storedGraphs()).doesNotContainKey(graph.jobId());
        assertThat(shutdowns).containsExactly("FINISHED discard=true");
        assertThat(result().status()).isEqualTo(JobStatus.FINISHED);
    }

    @Test
    void aFailingResultStoreNeverLeadsToARerunAfterLeadershipChanges() {
        createRunner(false);
        ha.storedGraphs().put(graph.jobId(), graph);
        ha.failResultWrites(Integer.MAX_VALUE);
        grant();
        runAll();
        List<ExecutionAttemptId> round = List.copyOf(taskExecutor.submittedIds());
        onMain(runner::cancel);
        reportAll(round, ExecutionState.CANCELED);
        runAll();
        assertThat(runner.status()).isEqualTo(JobStatus.CANCELED);

        election().revoke();
        runAll();
        main.advanceTime(Duration.ofSeconds(5));
        runAll();
        election().grant();
        runAll();
        main.advanceTime(Duration.ofSeconds(5));
        runAll();

        assertThat(recoveries.get()).as("no recovery, so no re-run, after the job ended").isEqualTo(1);
        assertThat(jobMasterThreads).hasSize(1);
        assertThat(runner.resultFuture()).isNotDone();
        assertThat(ha.storedGraphs()).containsKey(graph.jobId());

        ha.failResultWrites(0);
        main.advanceTime(Duration.ofSeconds(1));
        runAll();
        assertThat(result().status()).isEqualTo(JobStatus.CANCELED);
        assertThat(ha.storedGraphs()).doesNotContainKey(graph.jobId());
        assertThat(shutdowns).as("retain-on-cancel by default").containsExactly("CANCELED discard=false");
    }

    // ------------------------------------------------------------------ retention

    @Test
    void aFailedJobKeepsItsCheckpointsAndACancelledOneDiscardsThemOnlyWhenAskedTo() {
        createRunner(false);
        grant();
        runAll();
        List<ExecutionAttemptId> round = List.copyOf(taskExecutor.submittedIds());
        reportAll(round, ExecutionState.RUNNING);
        report(round.get(0), ExecutionState.FAILED, new IllegalStateException("permanent"));
        reportAll(round.subList(1, round.size()), ExecutionState.CANCELED);
        runAll();
        assertThat(result().status()).isEqualTo(JobStatus.FAILED);
        assertThat(shutdowns).containsExactly("FAILED discard=false");

        shutdowns.clear();
        jobMasterThreads.clear();
        createRunner(true);
        grant();
        runAll();
        onMain(runner::cancel);
        reportAll(taskExecutor.submittedIds().subList(round.size(), 2 * round.size()), ExecutionState.CANCELED);
        runAll();
        assertThat(result().status()).isEqualTo(JobStatus.CANCELED);
        assertThat(shutdowns).containsExactly("CANCELED discard=true");
    }

    // ------------------------------------------------------------------ unreadable checkpoints

    @Test
    void allCheckpointsUnreadableKeepsTheJobWaitingAndItResumesOnceRepaired() {
        createRunner(false);
        ha.storedGraphs().put(graph.jobId(), graph);
        AtomicInteger corrupt = new AtomicInteger(2);
        ha.onRecover((jobId, maxRetained, storage, allow, listener) -> {
            recoveries.incrementAndGet();
            if (corrupt.getAndDecrement() > 0) {
                throw new CheckpointRecoveryException("None of the 2 retained checkpoints of job " + jobId
                        + " could be read (chk-2: corrupt, chk-1: corrupt).");
            }
            return new StandaloneCompletedCheckpointStore(jobId, maxRetained, storage);
        });
        grant();
        runAll();

        assertThat(runner.status()).isEqualTo(JobStatus.INITIALIZING);
        assertThat(runner.resultFuture()).isNotDone();
        assertThat(ha.storedGraphs()).containsKey(graph.jobId());
        assertThat(ha.storedResults()).isEmpty();
        RecoveryStatus shown = onMain(runner::requestJobDetails).recovery();
        assertThat(shown.phase()).contains("no retained checkpoint is readable").contains("retrying in 5 s")
                .contains("checkpoints.restore-from");
        assertThat(shown.lastError()).contains("chk-2: corrupt");

        main.advanceTime(Duration.ofMillis(4_999));
        runAll();
        assertThat(recoveries.get()).isEqualTo(1);
        main.advanceTime(Duration.ofMillis(1));
        runAll();
        assertThat(recoveries.get()).isEqualTo(2);
        assertThat(onMain(runner::requestJobDetails).recovery().phase()).contains("retrying in 10 s");

        main.advanceTime(Duration.ofSeconds(10)); // the files were repaired meanwhile
        runAll();
        assertThat(recoveries.get()).isEqualTo(3);
        assertThat(jobMasterThreads).hasSize(1);
        reportAll(taskExecutor.submittedIds(), ExecutionState.RUNNING);
        assertThat(runner.status()).isEqualTo(JobStatus.RUNNING);
    }

    @Test
    void recoveryFindingNoReadableCheckpointThreeTimesInARowIsARestoreThatCanNeverSucceed() {
        createRunner(false);
        ha.storedGraphs().put(graph.jobId(), graph);
        AtomicInteger round = new AtomicInteger();
        ha.onRecover((jobId, maxRetained, storage, allow, listener) -> {
            recoveries.incrementAndGet();
            throw new CheckpointRecoveryException("None of the 2 retained checkpoints of job " + jobId
                    + " could be read (chk-2: corrupt, chk-1: corrupt; round " + round.incrementAndGet() + ").");
        });
        grant();
        runAll();
        main.advanceTime(Duration.ofSeconds(6));
        runAll();
        assertThat(onMain(runner::requestJobDetails).health().crashLoop()).as("twice is not a loop yet").isNull();
        main.advanceTime(Duration.ofSeconds(12));
        runAll();
        assertThat(recoveries.get()).isEqualTo(3);

        CrashLoop loop = onMain(runner::requestJobDetails).health().crashLoop();
        assertThat(loop).isNotNull();
        assertThat(loop.count()).isEqualTo(3);
        assertThat(loop.kind()).isEqualTo(CrashLoop.Kind.RESTORE_NEVER_SUCCEEDS);
        assertThat(loop.summary()).contains("restore from any retained checkpoint can never succeed")
                .contains("chk-2: corrupt");
        assertThat(onMain(() -> java.util.concurrent.CompletableFuture.completedFuture(runner.health())).crashLoop())
                .as("in the job list too").isEqualTo(loop);
        assertThat(runner.status()).isEqualTo(JobStatus.INITIALIZING);
        assertThat(runner.resultFuture()).isNotDone();
        assertThat(ha.storedGraphs()).as("the job is kept").containsKey(graph.jobId());
    }

    @Test
    void theIdCounterStartsAboveEveryRetainedCheckpointNotOnlyTheLatestUsableOne() {
        createRunner(false);
        ha.storedGraphs().put(graph.jobId(), graph);
        ha.onRecover((jobId, maxRetained, storage, allow, listener) -> {
            StandaloneCompletedCheckpointStore store = new StandaloneCompletedCheckpointStore(jobId, 3, storage);
            for (long id : new long[] {7, 8}) {
                store.addCheckpoint(new io.sluice.checkpoint.CompletedCheckpoint(jobId, id, 0, 0, List.of(),
                        storage.metadataPath(jobId, id)));
            }
            store.fallBackFrom(8, event -> { }); // 8 is retained but unusable: 7 is the latest
            return store;
        });
        grant();
        runAll();
        assertThat(ha.counterMinimums()).as("not 8: checkpoint 8 is retained").containsExactly(9L);
    }

    @Test
    void aRestorePathThatHoldsNoCheckpointFailsTheJobNamingIt() {
        String bad = root.resolve("0123456789abcdef0123456789abcdef").resolve("chk-7").toString();
        createRunner(false, bad);
        grant();
        runAll();

        JobResult result = result();
        assertThat(result.status()).isEqualTo(JobStatus.FAILED);
        assertThat(result.failureMessage()).contains(bad).contains("no checkpoint at").contains("_metadata");
        assertThat(jobMasterThreads).isEmpty();
    }

    // ------------------------------------------------------------------ helpers

    private void createRunner(boolean discardOnCancel) {
        createRunner(discardOnCancel, null);
    }

    private void createRunner(boolean discardOnCancel, String restoreFrom) {
        createRunner(discardOnCancel, restoreFrom, name -> {
            ManuallyTriggeredMainThreadExecutor t = new ManuallyTriggeredMainThreadExecutor(name, clock);
            jobMasterThreads.add(t);
            return t;
        });
    }

    private void createRunner(boolean discardOnCancel, String restoreFrom,
                              java.util.function.Function<String, io.sluice.rpc.MainThreadExecutor> threads) {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.create()
                .setParallelism(2)
                .setRestartStrategy(new NoRestart())
                .setRetainCheckpointsOnCancel(!discardOnCancel)
                .setCheckpointDir(root.toString());
        if (restoreFrom != null) {
            env.restoreFrom(restoreFrom);
        }
        env.fromSequence(0, 100).keyBy(v -> v % 4).map(v -> v).addSink(v -> { });
        graph = env.buildJobGraph("runner-test");
        JobManagerServices services = new JobManagerServices(ha, storages, new SlotPool(List.of(taskExecutor)),
                (jobId, deployment) -> { }, io, clock, new Random(1), BACKOFF, CONTENDER, SLOW, threads);
        runner = new JobManagerRunner(graph, services, main);
        main.execute(runner::start);
        main.triggerAll();
    }

    private TestingLeaderElection election() {
        return ha.jobElection(graph.jobId(), CONTENDER);
    }

    private UUID grant() {
        UUID s = election().grant();
        main.triggerAll();
        return s;
    }

    private CompletedCheckpointStore recording(CompletedCheckpointStore delegate) {
        return new CompletedCheckpointStore() {
            @Override
            public List<Long> addCheckpoint(CompletedCheckpoint checkpoint) throws Exception {
                return delegate.addCheckpoint(checkpoint);
            }

            @Override
            public Optional<CompletedCheckpoint> latest() {
                return delegate.latest();
            }

            @Override
            public List<Long> retainedIds() {
                return delegate.retainedIds();
            }

            @Override
            public int size() {
                return delegate.size();
            }

            @Override
            public int maxRetained() {
                return delegate.maxRetained();
            }

            @Override
            public void shutdown(JobStatus status, boolean discardCheckpoints) throws Exception {
                shutdowns.add(status + " discard=" + discardCheckpoints);
                delegate.shutdown(status, discardCheckpoints);
            }
        };
    }

    /** Runs the I/O queue and then the main threads until nothing is queued (scheduled commands wait for time). */
    private void runAll() {
        int ran;
        do {
            ran = main.triggerAll() + io.triggerAll();
            for (ManuallyTriggeredMainThreadExecutor t : new ArrayList<>(jobMasterThreads)) {
                ran += t.triggerAll();
            }
        } while (ran > 0);
    }

    private void runIo() {
        io.triggerAll();
        main.triggerAll();
    }

    private void reportAll(List<ExecutionAttemptId> ids, ExecutionState state) {
        for (ExecutionAttemptId id : ids) {
            report(id, state, null);
        }
    }

    private void report(ExecutionAttemptId id, ExecutionState state, Throwable failure) {
        taskExecutor.jobMasterOf(id).updateTaskExecutionState(new TaskExecutionState(id, state, failure));
        runAll();
    }

    private <T> T onMain(Supplier<java.util.concurrent.CompletableFuture<T>> call) {
        AtomicReference<java.util.concurrent.CompletableFuture<T>> f = new AtomicReference<>();
        main.execute(() -> f.set(call.get()));
        runAll();
        assertThat(f.get()).as("answered once the queues ran").isCompleted();
        return f.get().join();
    }

    /** The runner's result, which must be there already (never waits). */
    private JobResult result() {
        assertThat(runner.resultFuture()).as("the job's result is durable").isCompleted();
        return runner.resultFuture().join();
    }
}
