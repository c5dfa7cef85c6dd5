package io.sluice.dispatcher;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sluice.api.StreamExecutionEnvironment;
import io.sluice.checkpoint.CheckpointStorageRegistry;
import io.sluice.config.RestartStrategyConfig.NoRestart;
import io.sluice.graph.JobGraph;
import io.sluice.graph.JobId;
import io.sluice.jar.UserCodeClassLoaders;
import io.sluice.job.ExecutionAttemptId;
import io.sluice.job.ExecutionState;
import io.sluice.job.JobResult;
import io.sluice.job.JobStatus;
import io.sluice.jobmaster.JobManagerServices;
import io.sluice.jobmaster.RecoveryBackoff;
import io.sluice.jobmaster.RecoveryReads;
import io.sluice.protocol.JobDetails;
import io.sluice.protocol.JobSummary;
import io.sluice.protocol.TaskExecutionState;
import io.sluice.slots.SlotPool;
import io.sluice.testutil.ManualExecutorService;
import io.sluice.testutil.ManuallyTriggeredMainThreadExecutor;
import io.sluice.testutil.TestingHaServices;
import io.sluice.testutil.TestingTaskExecutorGateway;
import io.sluice.util.ManualClock;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * No job's work runs on the Dispatcher's main thread, and a status or list call never waits behind
 * another job's: every job's runner and job master has its own manually triggered main thread, the
 * I/O executor is manual, and 100 jobs are left restoring (recovery I/O queued), starting (job
 * master start queued on its un-run thread) and deploying (task reports queued on un-run job master
 * threads) while the test asks for the list and for one job's status, running only the Dispatcher's
 * thread and that job's own.
 */
@Timeout(60)
class DispatcherJobThreadsTest {
    private static final String CONTENDER = "jm-test";
    private static final RecoveryBackoff BACKOFF = new RecoveryBackoff(Duration.ofMillis(100), Duration.ofSeconds(1), 2.0, 0);

    @TempDir
    Path root;

    private final ManualClock clock = new ManualClock();
    private final ManuallyTriggeredMainThreadExecutor main = new ManuallyTriggeredMainThreadExecutor("dispatcher", clock);
    private final Map<JobId, ManuallyTriggeredMainThreadExecutor> runnerThreads = new LinkedHashMap<>();
    private final Map<String, ManuallyTriggeredMainThreadExecutor> jobMasterThreads = new LinkedHashMap<>();
    private final ManualExecutorService io = new ManualExecutorService();
    private final TestingTaskExecutorGateway taskExecutor = new TestingTaskExecutorGateway("te-1", 400);
    private final TestingHaServices ha = new TestingHaServices();
    private final CheckpointStorageRegistry storages = new CheckpointStorageRegistry(new SimpleMeterRegistry());
    private Dispatcher dispatcher;

    @AfterEach
    void tearDown() {
        storages.close();
    }

    private void startDispatcher(int maxConcurrentReads, int storedJobs) {
        for (int i = 0; i < storedJobs; i++) {
            StreamExecutionEnvironment env = StreamExecutionEnvironment.create().setParallelism(1)
                    .setRestartStrategy(new NoRestart()).setCheckpointDir(root.toString());
            env.fromSequence(0, 100).addSink(v -> { });
            JobGraph graph = env.buildJobGraph("job " + i);
            ha.storedGraphs().put(graph.jobId(), graph);
        }
        JobManagerServices services = new JobManagerServices(ha, storages, new SlotPool(List.of(taskExecutor)),
                (jobId, deployment) -> { }, io, clock, new Random(1), BACKOFF, CONTENDER,
                UserCodeClassLoaders.inTemporaryDirectory(ha::jobJarStore, io), RecoveryBackoff.UNUSABLE_CHECKPOINTS,
                name -> jobMasterThreads.computeIfAbsent(name, n -> new ManuallyTriggeredMainThreadExecutor(n, clock)),
                new RecoveryReads(maxConcurrentReads, io));
        dispatcher = new Dispatcher(services, main, EndedJobRetention.defaults(),
                id -> runnerThreads.computeIfAbsent(id, k -> new ManuallyTriggeredMainThreadExecutor("runner-" + k, clock)));
        dispatcher.start();
        main.triggerAll();
        ha.setDispatcherLeader(CONTENDER);
        ha.dispatcherElection(CONTENDER).grant();
        // Listing and graph reads: only the Dispatcher's thread and the I/O executor.
        while (main.triggerAll() + io.triggerAll() > 0) {
            // until quiet
        }
    }

    @Test
    void statusAndListAreAnsweredWhile100JobMastersRestoreStartAndDeployOnTheirOwnThreads() {
        startDispatcher(32, 100);
        assertThat(runnerThreads).as("a runner per job, each on its own thread").hasSize(100);
        assertThat(main.numQueued()).isZero();

        // Every runner joins its job's election and is granted on its own thread: 100 recoveries queue.
        runnerThreads.values().forEach(ManuallyTriggeredMainThreadExecutor::triggerAll);
        for (JobId id : runnerThreads.keySet()) {
            ha.jobElection(id, CONTENDER).grant();
        }
        runnerThreads.values().forEach(ManuallyTriggeredMainThreadExecutor::triggerAll);
        assertThat(io.numQueued()).as("recoveries in flight: the bound").isEqualTo(32);

        // 66 recoveries complete; their runners create job masters whose start waits on their own threads.
        for (int i = 0; i < 66; i++) {
            assertThat(io.triggerNext()).isTrue();
        }
        runnerThreads.values().forEach(ManuallyTriggeredMainThreadExecutor::triggerAll);
        assertThat(jobMasterThreads).as("66 job masters, starting").hasSize(66);
        assertThat(io.numQueued()).as("34 jobs still restoring: 32 reads in flight, 2 queued").isEqualTo(32);

        // Half of them deploy: their tasks are submitted and task reports queue on their un-run threads.
        List<ManuallyTriggeredMainThreadExecutor> masters = new ArrayList<>(jobMasterThreads.values());
        for (ManuallyTriggeredMainThreadExecutor jm : masters.subList(0, 33)) {
            jm.triggerAll();
        }
        for (ExecutionAttemptId task : taskExecutor.submittedIds()) {
            taskExecutor.jobMasterOf(task).updateTaskExecutionState(new TaskExecutionState(task, ExecutionState.RUNNING, null));
        }
        assertThat(taskExecutor.submittedIds()).hasSize(33);
        Map<Object, Integer> before = queuedEverywhere();
        assertThat(before.values().stream().mapToInt(Integer::intValue).sum()).as("work waiting on the jobs' threads")
                .isGreaterThanOrEqualTo(66 + 33);

        // The list: answered by the Dispatcher's thread alone.
        CompletableFuture<List<JobSummary>> list = dispatcher.listJobs();
        main.triggerAll();
        assertThat(list).isCompleted();
        Map<JobStatus, Long> statuses = list.join().stream()
                .collect(Collectors.groupingBy(JobSummary::status, Collectors.counting()));
        assertThat(statuses).containsEntry(JobStatus.INITIALIZING, 34L).containsEntry(JobStatus.CREATED, 66L);

        // A restoring job's status: the Dispatcher's thread and that job's runner thread, nothing else.
        List<String> phases = new ArrayList<>();
        for (JobId id : restoringJobs()) {
            CompletableFuture<JobDetails> details = dispatcher.requestJobDetails(id);
            main.triggerAll();
            runnerThreads.get(id).triggerAll();
            assertThat(details).isCompleted();
            assertThat(details.join().status()).isEqualTo(JobStatus.INITIALIZING);
            phases.add(details.join().recovery().phase());
        }
        assertThat(phases).as("34 restoring: 32 attempts started, 2 queued").hasSize(34)
                .containsOnlyOnce("queued for recovery: 0 jobs ahead", "queued for recovery: 1 job ahead");
        assertThat(phases.stream().filter(p -> p.startsWith("starting recovery attempt 1"))).hasSize(32);
        assertThat(queuedEverywhere()).as("no other job's work ran meanwhile").isEqualTo(before);
        assertThat(io.numQueued()).isEqualTo(32);
    }

    /**
     * Issue 22: status and list read published snapshots. With 100 jobs restoring, starting and
     * deploying and NOT ONE thread run (neither the Dispatcher's, nor any runner's or job master's,
     * nor the I/O executor), the list and the status of every job are answered at once and say
     * where each job stands. (Before, both waited for the Dispatcher's thread and a status also for
     * the job's runner and job master threads: none of these futures completed.)
     */
    @Test
    void statusAndListOfEveryJobAreAnsweredWithoutRunningAnyThreadWhile100JobMastersRestoreStartAndDeploy() {
        startDispatcher(32, 100);
        runnerThreads.values().forEach(ManuallyTriggeredMainThreadExecutor::triggerAll);
        for (JobId id : runnerThreads.keySet()) {
            ha.jobElection(id, CONTENDER).grant();
        }
        runnerThreads.values().forEach(ManuallyTriggeredMainThreadExecutor::triggerAll);
        for (int i = 0; i < 66; i++) {
            assertThat(io.triggerNext()).isTrue();
        }
        runnerThreads.values().forEach(ManuallyTriggeredMainThreadExecutor::triggerAll);
        List<ManuallyTriggeredMainThreadExecutor> masters = new ArrayList<>(jobMasterThreads.values());
        assertThat(masters).as("66 job masters created, their start queued on their own threads").hasSize(66);
        for (ManuallyTriggeredMainThreadExecutor jm : masters.subList(0, 33)) {
            jm.triggerAll(); // 33 start and deploy
        }
        for (ExecutionAttemptId task : taskExecutor.submittedIds()) {
            taskExecutor.jobMasterOf(task).updateTaskExecutionState(new TaskExecutionState(task, ExecutionState.RUNNING, null));
        }
        assertThat(taskExecutor.submittedIds()).hasSize(33);
        // From here on nothing runs: every thread's queue stays as it is.
        Map<Object, Integer> before = queuedEverywhere();
        int dispatcherQueued = main.numQueued();
        int ioQueued = io.numQueued();
        assertThat(before.values().stream().mapToInt(Integer::intValue).sum()).as("work waiting on the jobs' threads")
                .isGreaterThanOrEqualTo(33 + 33 + 33);

        CompletableFuture<List<JobSummary>> list = dispatcher.listJobs();
        assertThat(list).as("the list, with no thread run").isCompleted();
        assertThat(list.join()).hasSize(100);
        Map<JobStatus, Long> listed = list.join().stream()
                .collect(Collectors.groupingBy(JobSummary::status, Collectors.counting()));
        assertThat(listed).as("the runners' published statuses")
                .containsExactlyInAnyOrderEntriesOf(Map.of(JobStatus.INITIALIZING, 34L, JobStatus.CREATED, 66L));

        Map<JobId, JobDetails> answers = new LinkedHashMap<>();
        for (JobId id : runnerThreads.keySet()) {
            CompletableFuture<JobDetails> details = dispatcher.requestJobDetails(id);
            assertThat(details).as("the status of job %s, with no thread run", id).isCompleted();
            assertThat(details.join().jobId()).isEqualTo(id);
            answers.put(id, details.join());
        }
        List<JobId> restoring = restoringJobs();
        assertThat(restoring).hasSize(34);
        List<String> phases = restoring.stream().map(id -> answers.get(id))
                .peek(d -> assertThat(d.status()).isEqualTo(JobStatus.INITIALIZING))
                .map(d -> d.recovery().phase()).toList();
        assertThat(phases).as("34 restoring: 32 attempts started, 2 queued")
                .containsOnlyOnce("queued for recovery: 0 jobs ahead", "queued for recovery: 1 job ahead");
        assertThat(phases.stream().filter(p -> p.startsWith("starting recovery attempt 1"))).hasSize(32);

        Map<String, JobId> byMaster = new LinkedHashMap<>();
        runnerThreads.keySet().forEach(id -> byMaster.put("jobmaster-" + id.value().substring(0, 8), id));
        List<String> names = new ArrayList<>(jobMasterThreads.keySet());
        for (String starting : names.subList(33, 66)) {
            JobDetails d = answers.get(byMaster.get(starting));
            assertThat(d.status()).as("a job master whose start waits on its thread").isEqualTo(JobStatus.CREATED);
            assertThat(d.vertices()).isNotEmpty().allSatisfy(v -> assertThat(v.subtasks()).isEmpty());
            assertThat(d.recovery().phase()).isEqualTo("starting the job master");
            assertThat(d.transitions()).extracting(t -> t.status())
                    .containsExactly(JobStatus.INITIALIZING, JobStatus.CREATED);
        }
        for (String deploying : names.subList(0, 33)) {
            JobDetails d = answers.get(byMaster.get(deploying));
            assertThat(d.status()).as("a job master that deployed; its task's report waits on its thread")
                    .isEqualTo(JobStatus.RUNNING);
            assertThat(d.vertices()).flatExtracting(v -> v.subtasks()).extracting(t -> t.state())
                    .containsOnly(ExecutionState.DEPLOYING);
        }

        assertThat(queuedEverywhere()).as("no job's thread ran").isEqualTo(before);
        assertThat(main.numQueued()).as("nor the Dispatcher's").isEqualTo(dispatcherQueued);
        assertThat(io.numQueued()).as("nor the I/O executor").isEqualTo(ioQueued);

        // Once the jobs' threads run, the published snapshots follow: the reports of the deployed tasks show.
        masters.forEach(ManuallyTriggeredMainThreadExecutor::triggerAll);
        runnerThreads.values().forEach(ManuallyTriggeredMainThreadExecutor::triggerAll);
        JobDetails deployed = dispatcher.requestJobDetails(byMaster.get(names.get(0))).join();
        assertThat(deployed.vertices()).flatExtracting(v -> v.subtasks()).extracting(t -> t.state())
                .containsOnly(ExecutionState.RUNNING);
        assertThat(dispatcher.listJobs().join().stream().filter(j -> j.status() == JobStatus.RUNNING)).hasSize(66);
    }

    @Test
    void storedJobsWaitingForAGraphReadSayHowManyJobsAreAheadAndCancelEndsThemAtOnce() {
        startDispatcherWithoutRunningReads(2, 5);
        List<JobId> waiting = new ArrayList<>();
        for (JobId id : ha.storedGraphs().keySet()) {
            CompletableFuture<JobDetails> d = dispatcher.requestJobDetails(id);
            main.triggerAll();
            assertThat(d).as("answered by the Dispatcher's thread").isCompleted();
            String phase = d.join().recovery().phase();
            if (phase.startsWith("queued")) {
                waiting.add(id);
            }
        }
        assertThat(waiting).hasSize(3);
        CompletableFuture<JobDetails> last = dispatcher.requestJobDetails(waiting.get(2));
        main.triggerAll();
        assertThat(last).isCompleted();
        assertThat(last.join().recovery().phase()).isEqualTo("queued for recovery: 2 jobs ahead");

        CompletableFuture<?> cancel = dispatcher.cancelJob(waiting.get(0));
        CompletableFuture<JobResult> result = dispatcher.requestJobResult(waiting.get(0));
        main.triggerAll();
        assertThat(cancel).isCompleted();
        for (int i = 0; i < 3; i++) {
            io.triggerNext(); // the two graph reads in flight (each frees a slot for the next job), then the result write
        }
        main.triggerAll();
        assertThat(result).isCompleted();
        assertThat(result.join().status()).isEqualTo(JobStatus.CANCELED);
        CompletableFuture<JobDetails> next = dispatcher.requestJobDetails(waiting.get(2));
        main.triggerAll();
        assertThat(next).isCompleted();
        assertThat(next.join().recovery().phase()).as("its turn came").isEqualTo("reading the job graph");
    }

    private void startDispatcherWithoutRunningReads(int maxConcurrentReads, int storedJobs) {
        for (int i = 0; i < storedJobs; i++) {
            StreamExecutionEnvironment env = StreamExecutionEnvironment.create().setParallelism(1)
                    .setRestartStrategy(new NoRestart()).setCheckpointDir(root.toString());
            env.fromSequence(0, 100).addSink(v -> { });
            JobGraph graph = env.buildJobGraph("job " + i);
            ha.storedGraphs().put(graph.jobId(), graph);
        }
        JobManagerServices services = new JobManagerServices(ha, storages, new SlotPool(List.of(taskExecutor)),
                (jobId, deployment) -> { }, io, clock, new Random(1), BACKOFF, CONTENDER,
                UserCodeClassLoaders.inTemporaryDirectory(ha::jobJarStore, io), RecoveryBackoff.UNUSABLE_CHECKPOINTS,
                name -> jobMasterThreads.computeIfAbsent(name, n -> new ManuallyTriggeredMainThreadExecutor(n, clock)),
                new RecoveryReads(maxConcurrentReads, io));
        dispatcher = new Dispatcher(services, main, EndedJobRetention.defaults(),
                id -> runnerThreads.computeIfAbsent(id, k -> new ManuallyTriggeredMainThreadExecutor("runner-" + k, clock)));
        dispatcher.start();
        main.triggerAll();
        ha.setDispatcherLeader(CONTENDER);
        ha.dispatcherElection(CONTENDER).grant();
        main.triggerAll();
        io.triggerNext(); // the listing
        io.triggerNext(); // the stored savepoint entries, read once per leadership beside the jobs' recovery
        main.triggerAll();
        assertThat(io.numQueued()).as("graph reads in flight: the bound").isEqualTo(maxConcurrentReads);
    }

    /** The jobs whose job master has not been created (their recovery has not completed). */
    private List<JobId> restoringJobs() {
        return runnerThreads.keySet().stream()
                .filter(id -> !jobMasterThreads.containsKey("jobmaster-" + id.value().substring(0, 8))).toList();
    }

    /** Commands waiting on every job's runner and job master thread. */
    private Map<Object, Integer> queuedEverywhere() {
        Map<Object, Integer> queued = new LinkedHashMap<>();
        runnerThreads.forEach((id, t) -> queued.put(id, t.numQueued()));
        jobMasterThreads.forEach((name, t) -> queued.put(name, t.numQueued()));
        return queued;
    }
}
