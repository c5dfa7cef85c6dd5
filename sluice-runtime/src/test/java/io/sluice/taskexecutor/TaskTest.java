package io.sluice.taskexecutor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.spi.ILoggingEvent;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sluice.api.StreamExecutionEnvironment;
import io.sluice.checkpoint.CheckpointStorage;
import io.sluice.graph.JobGraph;
import io.sluice.job.ExecutionState;
import io.sluice.job.ExecutionAttemptId;
import io.sluice.network.LocalShuffleService;
import io.sluice.protocol.TaskMetrics;
import io.sluice.protocol.TaskDeploymentDescriptor;
import io.sluice.protocol.TaskRestore;
import io.sluice.storage.LocalFileBlobStore;
import io.sluice.testutil.CapturedLog;
import io.sluice.testutil.CommittingSink;
import io.sluice.testutil.ManualExecutorService;
import io.sluice.util.ManualClock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * One task on its own thread, as in production, with its state uploads on a manually triggered I/O
 * executor: the coordination between the task thread, the uploads and a cancel that before was
 * seen only in integration tests with real I/O threads (ExactlyOnceITCase). The test waits, bounded,
 * only for the task thread to reach a phase; the order of what the job master hears is decided by
 * when the test runs the I/O executor.
 */
@Timeout(60)
class TaskTest {
    private static final Duration WAIT = Duration.ofSeconds(20);

    @TempDir
    Path root;

    private final ManualExecutorService io = new ManualExecutorService();
    private final CheckpointRecordingJobMaster jobMaster = new CheckpointRecordingJobMaster();
    private Task task;

    @AfterEach
    void tearDown() {
        if (task != null) {
            task.cancel();
            io.triggerAll();
        }
    }

    /**
     * A source that took a checkpoint and then reached the end of its input reports FINISHED only
     * after the checkpoint's upload acknowledged it: the job master must not see a FINISHED task
     * that still owes it an acknowledgement.
     */
    @Test
    void aFinishingTaskWaitsForItsUploadSoTheAcknowledgementComesBeforeFinished() {
        task = new Task(descriptor(bounded(), null), services());
        task.triggerCheckpoint(1, 0); // taken at the first look at the mailbox

        task.start();
        await().atMost(WAIT).until(() -> task.phase() == TaskPhase.FINISHING && blocked(task));

        assertThat(io.numQueued()).as("the upload, not yet run").isEqualTo(1);
        assertThat(jobMaster.events()).containsExactly("RUNNING");

        io.triggerAll();
        await().atMost(WAIT).until(() -> task.phase().isEnded());

        assertThat(jobMaster.events()).containsExactly("RUNNING", "ack 1", "FINISHED");
        assertThat(jobMaster.acknowledged(1).sourcePosition()).as("the source's position").isNotNull();
        assertThat(task.metrics().recordsIn()).isEqualTo(1_000);
        assertThat(jobMaster.states().get(0).finalMetrics()).as("RUNNING carries no final counters").isNull();
        TaskMetrics last = jobMaster.states().get(1).finalMetrics();
        assertThat(last).as("FINISHED carries the task's last counters, for the job's details").isNotNull();
        assertThat(last.recordsIn()).isEqualTo(1_000);
        assertThat(last.state()).isEqualTo(ExecutionState.FINISHED);
    }

    /** A cancel does not wait for an upload in flight: the upload is cancelled and never acknowledges. */
    @Test
    void aCancelledTaskEndsWithoutItsPendingUploadWhichNeverAcknowledges() {
        task = new Task(descriptor(unbounded(), null), services());
        task.triggerCheckpoint(1, 0);
        task.start();
        await().atMost(WAIT).until(() -> io.numQueued() == 1);

        task.cancel();
        await().atMost(WAIT).until(() -> task.phase().isEnded());
        io.triggerAll();

        assertThat(task.phase()).isEqualTo(TaskPhase.CANCELED);
        assertThat(jobMaster.events()).containsExactly("RUNNING", "CANCELED");
    }

    /**
     * A task that fails while its checkpoint's upload is still queued: the upload, which then fails too (here the
     * storage refuses the sink's state; with RocksDB, the closed instance's files are gone), neither warns nor
     * declines. The task's failure is what the job master hears (it aborts the checkpoint as no failure of
     * checkpointing) and what the log warns about; before, every such upload logged a second warning with a stack
     * trace and declined, which the job master counted as a storage failure (seen at each failover of the
     * large-state benchmark: "Checkpoint 21 failed (storage)").
     */
    @Test
    void aTaskThatFailsWhileItsUploadIsQueuedNeitherWarnsNorDeclinesForTheUpload() throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.create().setParallelism(1)
                .enableCheckpointing(Duration.ofHours(1)).setCheckpointDir(root.toString())
                .setInlineStateThreshold(0); // the sink's state is written to storage, however small
        env.fromSequence(0, Long.MAX_VALUE).map(v -> {
            if (v == 500) {
                throw new IllegalStateException("the user function fails at 500");
            }
            return v + 1;
        }).sinkTo(new CommittingSink(CommittingSink.store().id()), "committing");
        try (CapturedLog logged = CapturedLog.of(SubtaskCheckpointer.class, Level.DEBUG)) {
            task = new Task(descriptor(env.buildJobGraph("fails"), null), services());
            task.triggerCheckpoint(1, 0); // taken at the first look at the mailbox, before record 500
            task.start();
            await().atMost(WAIT).until(() -> task.phase().isEnded());
            assertThat(task.phase()).isEqualTo(TaskPhase.FAILED);
            assertThat(io.numQueued()).as("the upload, not yet run").isEqualTo(1);
            Files.walk(root).sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            Files.writeString(root, "not a directory any more"); // every write under it fails

            io.triggerAll();

            assertThat(jobMaster.events()).containsExactly("RUNNING", "FAILED");
            assertThat(logged.events()).as("what the upload logged").extracting(ILoggingEvent::getLevel,
                    ILoggingEvent::getFormattedMessage).containsExactly(org.assertj.core.groups.Tuple.tuple(Level.DEBUG,
                    "Task " + task.name() + " ended while writing its state for checkpoint 1"));
        }
    }

    @Test
    void aTaskCancelledBeforeItsThreadRanIsNeverSetUpAndIsHeardOnlyAsCanceled() {
        task = new Task(descriptor(unbounded(), null), services());

        task.cancel();
        task.start();
        await().atMost(WAIT).until(() -> task.phase().isEnded());

        assertThat(jobMaster.events()).containsExactly("CANCELED");
        assertThat(task.metrics().recordsIn()).isZero();
        assertThat(task.outputBlockedNanos()).isZero();
    }

    /** A task restored as finished (its operators finished before that checkpoint) emits nothing and ends at once. */
    @Test
    void aTaskRestoredAsFinishedReadsNothingAndFinishes() {
        task = new Task(descriptor(bounded(), new TaskRestore(3, null, List.of(), true)), services());

        task.start();
        await().atMost(WAIT).until(() -> task.phase().isEnded());

        assertThat(jobMaster.events()).containsExactly("RUNNING", "FINISHED");
        assertThat(task.metrics().recordsIn()).isZero();
        assertThat(io.numQueued()).isZero();
    }

    // ------------------------------------------------------------------ final checkpoint

    /**
     * A two-phase-commit sink's task whose input ended commits nothing yet: it awaits its final
     * checkpoint, takes it when triggered (no barrier: its outputs ended), and commits and reports
     * FINISHED only once that checkpoint completed.
     */
    @Test
    void aTaskWithATwoPhaseCommitSinkCommitsItsLastOutputOnlyWhenItsFinalCheckpointCompleted() {
        CommittingSink.Store store = CommittingSink.store();
        task = new Task(descriptor(boundedInto(store), null), services());

        task.start();
        await().atMost(WAIT).until(() -> task.phase() == TaskPhase.AWAITING_FINAL_CHECKPOINT);
        assertThat(jobMaster.events()).containsExactly("RUNNING", "RUNNING awaiting final checkpoint");
        assertThat(store.committed()).as("nothing committed when the input ended").isEmpty();

        task.triggerCheckpoint(7, 0);
        await().atMost(WAIT).until(() -> io.numQueued() == 1);
        io.triggerAll();
        assertThat(jobMaster.events()).endsWith("ack 7");
        assertThat(store.committed()).as("not before the checkpoint completed").isEmpty();
        assertThat(task.phase()).isEqualTo(TaskPhase.AWAITING_FINAL_CHECKPOINT);

        task.notifyCheckpointComplete(7);
        await().atMost(WAIT).until(() -> task.phase().isEnded());

        assertThat(jobMaster.events()).containsExactly("RUNNING", "RUNNING awaiting final checkpoint", "ack 7",
                "FINISHED");
        assertThat(store.committed()).hasSize(1_000).doesNotHaveDuplicates();
    }

    /** Cancelled while it awaits its final checkpoint (a failover elsewhere): nothing is committed. */
    @Test
    void aTaskCancelledWhileAwaitingItsFinalCheckpointCommitsNothing() {
        CommittingSink.Store store = CommittingSink.store();
        task = new Task(descriptor(boundedInto(store), null), services());
        task.start();
        await().atMost(WAIT).until(() -> task.phase() == TaskPhase.AWAITING_FINAL_CHECKPOINT);
        task.triggerCheckpoint(7, 0);
        await().atMost(WAIT).until(() -> io.numQueued() == 1);
        io.triggerAll();

        task.cancel();
        await().atMost(WAIT).until(() -> task.phase().isEnded());
        task.notifyCheckpointComplete(7); // too late: the task has ended

        assertThat(task.phase()).isEqualTo(TaskPhase.CANCELED);
        assertThat(jobMaster.events()).containsExactly("RUNNING", "RUNNING awaiting final checkpoint", "ack 7",
                "CANCELED");
        assertThat(store.committed()).isEmpty();
    }

    private JobGraph boundedInto(CommittingSink.Store store) {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.create().setParallelism(1)
                .enableCheckpointing(Duration.ofHours(1)).setCheckpointDir(root.toString());
        env.fromSequence(0, 999).sinkTo(new CommittingSink(store.id()), "committing");
        return env.buildJobGraph("bounded into a two-phase-commit sink");
    }

    // ------------------------------------------------------------------ helpers

    private TaskServices services() {
        CheckpointStorage storage = new CheckpointStorage(new LocalFileBlobStore(root), new SimpleMeterRegistry());
        return new TaskServices(jobMaster, new LocalShuffleService(), storage, io, null,
                jobMaster::updateTaskExecutionState, getClass().getClassLoader(), new ManualClock(),
                KeyedStateBackendFactory.heap());
    }

    /** Whether the task thread waits (in the uploads it awaits). */
    private static boolean blocked(Task task) {
        String name = "sluice-task-" + task.name() + "@" + task.attemptId().deployment();
        return Thread.getAllStackTraces().keySet().stream()
                .anyMatch(t -> t.getName().equals(name) && t.getState() == Thread.State.WAITING);
    }

    private JobGraph bounded() {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.create().setParallelism(1)
                .setCheckpointDir(root.toString());
        env.fromSequence(0, 999).map(v -> v + 1).addSink(v -> { });
        return env.buildJobGraph("bounded");
    }

    private JobGraph unbounded() {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.create().setParallelism(1)
                .setCheckpointDir(root.toString());
        env.fromSequence(0, Long.MAX_VALUE).map(v -> v + 1).addSink(v -> { });
        return env.buildJobGraph("unbounded");
    }

    private static TaskDeploymentDescriptor descriptor(JobGraph graph, TaskRestore restore) {
        assertThat(graph.vertices()).as("one chained task").hasSize(1);
        return new TaskDeploymentDescriptor(graph,
                new ExecutionAttemptId(graph.jobId(), graph.vertices().get(0).id(), 0, 1), 0, restore);
    }
}
