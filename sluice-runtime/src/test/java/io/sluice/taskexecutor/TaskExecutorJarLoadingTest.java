package io.sluice.taskexecutor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sluice.api.StreamExecutionEnvironment;
import io.sluice.checkpoint.CheckpointStorageRegistry;
import io.sluice.graph.JobGraph;
import io.sluice.graph.JobId;
import io.sluice.jar.InMemoryJobJarStore;
import io.sluice.jar.JobJarStore;
import io.sluice.jar.JobJarUnavailableException;
import io.sluice.jar.UserCodeClassLoaders;
import io.sluice.job.ExecutionAttemptId;
import io.sluice.job.ExecutionState;
import io.sluice.network.LocalShuffleService;
import io.sluice.protocol.TaskDeploymentDescriptor;
import io.sluice.rpc.Acknowledge;
import io.sluice.testutil.RecordingJobMasterGateway;
import io.sluice.testutil.ManuallyTriggeredMainThreadExecutor;
import io.sluice.util.ManualClock;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A task executor in a process of its own (no job manager beside it holds the job's loader): the
 * jar of a job is fetched from the HA job jar store on the I/O executor (never the main thread),
 * once for the tasks that arrive together, the tasks run with the job's loader, which is released
 * when the last of them ends; a jar that cannot be fetched (e.g. a digest mismatch) fails those
 * deployments with an error naming the job and the task executor, and a job without a jar still runs.
 */
@Timeout(60)
class TaskExecutorJarLoadingTest {
    private static final Duration WAIT = Duration.ofSeconds(20);

    @TempDir
    Path root;

    private final ManualClock clock = new ManualClock();
    private final ManuallyTriggeredMainThreadExecutor main = new ManuallyTriggeredMainThreadExecutor("taskexecutor-jar-test", clock);
    private final ExecutorService io = Executors.newCachedThreadPool();
    private final CountingJarStore store = new CountingJarStore();
    private final RecordingJobMasterGateway jobMaster = new RecordingJobMasterGateway();
    private CheckpointStorageRegistry storages;
    private UserCodeClassLoaders userCode;
    private TaskExecutor taskExecutor;

    @BeforeEach
    void setUp() {
        storages = new CheckpointStorageRegistry(new SimpleMeterRegistry());
        userCode = new UserCodeClassLoaders(() -> store, io, getClass().getClassLoader(), root.resolve("cache"));
        taskExecutor = new TaskExecutor("te-remote", 2, main, io, new LocalShuffleService(), storages, userCode, clock);
    }

    @AfterEach
    void tearDown() {
        taskExecutor.cancelAll();
        main.triggerAll();
        io.shutdownNow();
        storages.close();
    }

    @Test
    void theJarIsFetchedOnceOffTheMainThreadAndItsLoaderIsReleasedWhenTheLastTaskEnds() throws Exception {
        JobGraph graph = bounded(2);
        io.submit(() -> {
            store.putJobJar(graph.jobId(), emptyJar());
            return null;
        }).get();

        CompletableFuture<Acknowledge> first = taskExecutor.submitTask(descriptor(graph, 0), jobMaster);
        CompletableFuture<Acknowledge> second = taskExecutor.submitTask(descriptor(graph, 1), jobMaster);
        await().atMost(WAIT).pollInterval(Duration.ofMillis(5)).until(() -> {
            main.triggerAll();
            return first.isDone() && second.isDone();
        });
        assertThat(first).isCompletedWithValue(Acknowledge.INSTANCE);
        assertThat(second).isCompletedWithValue(Acknowledge.INSTANCE);
        assertThat(store.copies.get()).as("one fetch for both tasks").isEqualTo(1);

        await().atMost(WAIT).pollInterval(Duration.ofMillis(5)).until(() -> {
            main.triggerAll();
            return jobMaster.reports().stream().filter(r -> r.state() == ExecutionState.FINISHED).count() == 2;
        });
        assertThat(userCode.isLoaded(graph.jobId())).as("released with the job's last task here").isFalse();
    }

    @Test
    void aJarThatCannotBeFetchedFailsItsDeploymentWithAClearErrorAndOtherJobsStillRun() throws Exception {
        JobGraph broken = bounded(1);
        store.failCopy = true;
        io.submit(() -> {
            store.putJobJar(broken.jobId(), emptyJar());
            return null;
        }).get();
        JobGraph plain = bounded(1);

        CompletableFuture<Acknowledge> failed = taskExecutor.submitTask(descriptor(broken, 0), jobMaster);
        CompletableFuture<Acknowledge> ok = taskExecutor.submitTask(descriptor(plain, 0), jobMaster);
        await().atMost(WAIT).pollInterval(Duration.ofMillis(5)).until(() -> {
            main.triggerAll();
            return failed.isDone() && ok.isDone();
        });
        assertThat(ok).isCompletedWithValue(Acknowledge.INSTANCE);
        assertThat(failed).isCompletedExceptionally();
        Throwable cause = failed.handle((v, e) -> e).join();
        while (cause.getCause() != null && !(cause instanceof JobJarUnavailableException)) {
            cause = cause.getCause();
        }
        assertThat(cause).isInstanceOf(JobJarUnavailableException.class)
                .hasMessageContaining("te-remote").hasMessageContaining(broken.jobId().toString())
                .hasMessageContaining("has SHA-256");
        assertThat(userCode.isLoaded(broken.jobId())).isFalse();
    }

    private JobGraph bounded(int parallelism) {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.create().setParallelism(parallelism)
                .setCheckpointDir(root.resolve("checkpoints").toString());
        env.fromSequence(0, 100).map(v -> v + 1).addSink(v -> { });
        return env.buildJobGraph("bounded");
    }

    private static TaskDeploymentDescriptor descriptor(JobGraph graph, int subtask) {
        return new TaskDeploymentDescriptor(graph,
                new ExecutionAttemptId(graph.jobId(), graph.vertices().get(0).id(), subtask, 1), subtask, null);
    }

    private Path emptyJar() throws IOException {
        Path jar = Files.createTempFile(root, "job", ".jar");
        try (OutputStream file = Files.newOutputStream(jar); JarOutputStream out = new JarOutputStream(file, new Manifest())) {
            out.flush();
        }
        return jar;
    }

    /** An in-memory jar store that counts fetches and can refuse them as a store whose digest check failed. */
    private static final class CountingJarStore implements JobJarStore {
        private final InMemoryJobJarStore delegate = new InMemoryJobJarStore();
        final AtomicInteger copies = new AtomicInteger();
        volatile boolean failCopy;

        @Override
        public void putJobJar(JobId jobId, Path jar) throws IOException {
            delegate.putJobJar(jobId, jar);
        }

        @Override
        public boolean hasJobJar(JobId jobId) throws IOException {
            return delegate.hasJobJar(jobId);
        }

        @Override
        public void copyJobJar(JobId jobId, Path target) throws IOException {
            copies.incrementAndGet();
            if (failCopy) {
                throw new IOException("The jar of job " + jobId + " at jobjars/" + jobId + " has SHA-256 00ff, but"
                        + " ZooKeeper records SHA-256 ab12");
            }
            delegate.copyJobJar(jobId, target);
        }

        @Override
        public void removeJobJar(JobId jobId) throws IOException {
            delegate.removeJobJar(jobId);
        }
    }
}
