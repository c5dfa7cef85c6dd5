package io.sluice.taskexecutor;

import io.sluice.api.functions.KeySelector;
import io.sluice.api.source.SourceReader;
import io.sluice.concurrent.DaemonThreadFactory;
import io.sluice.graph.VertexPayload;
import io.sluice.job.ExecutionAttemptId;
import io.sluice.job.ExecutionState;
import io.sluice.network.ChannelReleasedException;
import io.sluice.operators.RecordTimestamp;
import io.sluice.protocol.TaskDeploymentDescriptor;
import io.sluice.protocol.TaskMetrics;
import io.sluice.state.KeyedStateBackend;
import java.util.concurrent.RejectedExecutionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One running subtask: a thread that reads its input (or its source), pushes records through its
 * operator chain and writes them to its output channels. This class holds the task's lifecycle and
 * puts its parts together; each part has one job:
 *
 * <ul>
 *   <li>{@link TaskServices}: what the task gets from its task executor;</li>
 *   <li>{@link TaskLifecycle}: the phases {@code CREATED -> DEPLOYING -> RUNNING -> FINISHING
 *       (-> AWAITING_FINAL_CHECKPOINT) -> FINISHED}, {@code CANCELING -> CANCELED}, {@code FAILED},
 *       changed by one guarded method;</li>
 *   <li>{@link TaskChannels}, {@link TaskOutputs}, {@link TaskInputs}: the channels, record writers
 *       and input gate; {@link OperatorChain}: the operators wired onto the outputs;</li>
 *   <li>{@link TaskStateRestore}: keyed state (into a backend from the {@link KeyedStateBackendFactory})
 *       and source position from the checkpoint the deployment names;</li>
 *   <li>{@link SubtaskCheckpointer} with {@link StateUploads}: barrier, snapshot, upload,
 *       acknowledgement, and the completion and abort notices to the operators;</li>
 *   <li>{@link RecordDriver}: the record loop of a source, of a task reading other tasks, or of a
 *       task restored as finished, with the {@link TaskMailbox} and processing time in between.</li>
 * </ul>
 *
 * <p>Threads: {@link #run()} owns the task thread ({@link TaskThread}), which sets everything up and
 * runs the chain. The task executor's main thread reaches the task only through {@link #cancel()}
 * (the lifecycle's one foreign move, which also releases the channels and interrupts the thread) and
 * the mailbox ({@link #triggerCheckpoint}, {@link #notifyCheckpointComplete},
 * {@link #notifyCheckpointAborted}), whose mails the task thread runs between records. Metrics are
 * read racily from any thread.
 *
 * <p>Finishing: a source that reached the end of its input drains its mailbox once more, so a
 * trigger that arrived before that is still taken; a later one is dropped. Before it reports
 * {@code FINISHED} a task waits for its state uploads, so its acknowledgement reaches the job
 * master first: a task that reports {@code FINISHED} while a checkpoint still awaits it never took
 * that snapshot, and the job master records it as finished in that checkpoint. A task restored as
 * finished emits nothing and ends its outputs at once.
 *
 * <p>Final checkpoint: when an operator of the chain commits its last output only once a checkpoint
 * covers it (a two-phase-commit sink with checkpoints on), the task does not finish when its input
 * ends. It reports {@code AWAITING_FINAL_CHECKPOINT} (as {@code RUNNING} with a flag), takes the next
 * checkpoint the job master triggers at it directly ({@link FinalCheckpointWait}), and only when that
 * checkpoint (or a later one) completed do its operators commit and the task report {@code FINISHED}.
 * So a task is recorded as finished in a checkpoint only once its last output is committed, and a
 * restore of an earlier checkpoint finds that output uncommitted: it is written and committed once.
 *
 * <p>Ending: cancelled (also when the cancel came while it failed or finished) it reports
 * {@code CANCELED} and releases the network ends of its channels at once; failed, {@code FAILED}
 * with the cause; else {@code FINISHED}.
 */
public final class Task implements Runnable {
    private static final Logger LOG = LoggerFactory.getLogger(Task.class);

    private final TaskDeploymentDescriptor tdd;
    private final TaskServices services;
    private final TaskInfo info;
    private final TaskThread taskThread;
    private final TaskLifecycle lifecycle;
    private final TaskMailbox mailbox;
    private final TaskChannels channels;
    private final StateUploads uploads;
    private final SubtaskLocalState localState;
    /** Snapshots of at most this many bytes are acknowledged inline instead of written to a state file; -1: never. */
    private final int inlineStateThreshold;
    /** The event timestamp of the record in the chain; shared by the input, the operators and the writers. */
    private final RecordTimestamp recordTimestamp = new RecordTimestamp();

    // Made by the task thread while DEPLOYING; null before. Read racily by other threads for metrics.
    private volatile OperatorChain chain;
    private volatile RecordDriver driver;
    // Task thread only.
    private SubtaskCheckpointer checkpointer;
    /** Set on the task thread in set-up; volatile for metrics read by other threads. */
    private volatile KeyedStateBackend backend;
    /**
     * Set by the task thread when it starts closing the task (after its end, a failure or a cancel): the keyed state
     * backend is closed next, so an upload still reading it fails, which is then no news. Read by the I/O threads.
     */
    private volatile boolean closing;
    private SourceReader<?> reader;

    Task(TaskDeploymentDescriptor tdd, TaskServices services) {
        this.tdd = tdd;
        this.services = services;
        this.info = TaskInfo.of(tdd);
        this.taskThread = new TaskThread(info.taskName());
        // An end state carries the task's last counters: once it ended, its task executor no longer has it to ask.
        this.lifecycle = new TaskLifecycle(tdd.attemptId(), info.taskName(), report -> services.stateListener()
                .accept(report.state().isTerminal() ? report.withFinalMetrics(metrics()) : report));
        this.mailbox = new TaskMailbox(taskThread);
        this.channels = new TaskChannels(tdd, services.shuffle());
        this.uploads = new StateUploads(info.taskName(), services.ioExecutor());
        this.localState = new SubtaskLocalState(tdd.jobGraph().config().localRecovery() ? services.localState() : null,
                tdd.jobGraph().jobId(), tdd.vertex().id(), tdd.subtaskIndex());
        int threshold = tdd.jobGraph().config().inlineStateThreshold();
        this.inlineStateThreshold = threshold > 0 ? threshold : -1;
    }

    public ExecutionAttemptId attemptId() {
        return tdd.attemptId();
    }

    /** The state the job master heard last ({@code DEPLOYING} before the first report). Any thread. */
    public ExecutionState state() {
        return lifecycle.reportedState();
    }

    public String name() {
        return info.taskName();
    }

    /** Where the task is in its lifecycle. Any thread. */
    TaskPhase phase() {
        return lifecycle.phase();
    }

    /** Starts the task thread, with the job's class loader as its context class loader. Once. */
    void start() {
        Thread t = DaemonThreadFactory.named("sluice-task-" + info.taskName() + "@" + tdd.attemptId().deployment())
                .withContextClassLoader(services.userCodeClassLoader()).newThread(this);
        taskThread.bind(t);
        t.start();
    }

    /**
     * Asks the task to stop; returns at once. The task reports {@code CANCELED} when its thread
     * ends. Nothing happens once the task ended or was cancelled. Any thread (the task executor's
     * main thread).
     */
    void cancel() {
        if (!lifecycle.transitionTo(TaskPhase.CANCELING)) {
            return;
        }
        channels.releaseOnCancel(cancelled());
        Thread t = taskThread.thread();
        if (t != null) {
            t.interrupt();
        }
        uploads.cancelAll();
    }

    /**
     * A source's checkpoint, or one of a task awaiting its final checkpoint: taken by the task thread at its
     * next look at the mailbox. Any thread.
     */
    void triggerCheckpoint(long checkpointId, long timestampMillis) {
        mailbox.put(() -> {
            resumeSource(); // a stop-with-savepoint before it failed: the job goes on
            checkpointer.checkpoint(checkpointId, timestampMillis);
        });
    }

    /**
     * A source's savepoint (a full snapshot, see {@link SubtaskCheckpointer#checkpoint(long, long, boolean)});
     * with {@code stop}, the source emits nothing after its barrier ({@link SourceDriver#stopAfter}). Any thread.
     */
    void triggerSavepoint(long checkpointId, long timestampMillis, boolean stop) {
        mailbox.put(() -> {
            resumeSource();
            checkpointer.checkpoint(checkpointId, timestampMillis, true);
            if (stop && driver instanceof SourceDriver source) {
                source.stopAfter(checkpointId);
            }
        });
    }

    /** Task thread (mail): a source stopped after a stop-with-savepoint's barrier emits again. */
    private void resumeSource() {
        if (driver instanceof SourceDriver source) {
            source.resume();
        }
    }

    /**
     * Checkpoint {@code checkpointId} completed: older local copies go on the I/O executor (deleting them is file
     * I/O, and the caller is the task executor's main thread), the operators hear it on the task thread. Any thread.
     */
    void notifyCheckpointComplete(long checkpointId) {
        if (localState.enabled()) {
            try {
                services.ioExecutor().execute(() -> localState.confirm(checkpointId));
            } catch (RejectedExecutionException e) {
                LOG.debug("{}: the task executor stops; the local copies older than checkpoint {} go with it",
                        info.taskName(), checkpointId);
            }
        }
        mailbox.put(() -> checkpointer.notifyCheckpointComplete(checkpointId));
    }

    /** Checkpoint {@code checkpointId} will not complete: the operators hear it on the task thread. Any thread. */
    void notifyCheckpointAborted(long checkpointId) {
        mailbox.put(() -> checkpointer.notifyCheckpointAborted(checkpointId));
    }

    /** The task's counters now (racy reads, for metrics). Any thread. */
    TaskMetrics metrics() {
        OperatorChain c = chain;
        RecordDriver d = driver;
        return new TaskMetrics(tdd.attemptId(), lifecycle.reportedState(), d == null ? 0 : d.recordsIn(),
                c == null ? 0 : c.outputs().recordsWritten(), c == null ? 0 : c.lateRecordsDropped(),
                c == null ? null : c.commitStats());
    }

    /** Total time this task's output was blocked on full channels (backpressure), in nanoseconds. Any thread. */
    long outputBlockedNanos() {
        OperatorChain c = chain;
        return c == null ? 0 : c.outputs().blockedNanos();
    }

    /**
     * The size at which the task's writers hand buffers over now (the smallest over its outputs), 0
     * before it runs or without outputs. Any thread.
     */
    int outputHandOverSize() {
        OperatorChain c = chain;
        return c == null ? 0 : c.outputs().handOverSize();
    }

    /** The task's keyed state backend once set up, or {@code null}; for metrics, any thread. */
    KeyedStateBackend keyedStateBackend() {
        return backend;
    }

    /** The deployment descriptor of this attempt. */
    TaskDeploymentDescriptor descriptor() {
        return tdd;
    }

    @Override
    public void run() {
        taskThread.check("Running the task");
        Throwable failure = null;
        try {
            if (lifecycle.transitionTo(TaskPhase.DEPLOYING)) {
                setUp();
                if (lifecycle.transitionTo(TaskPhase.RUNNING)) {
                    driver.run();
                    finish();
                }
            }
        } catch (Throwable t) {
            failure = t;
        } finally {
            closeQuietly();
        }
        end(failure);
        Thread.currentThread().setContextClassLoader(null); // the ended thread keeps no job class loader alive
    }

    /**
     * Builds the task while {@code DEPLOYING}, in this order: outputs, inputs, keyed state (restored),
     * the operator chain (opened), the source reader (at its restored position), the checkpointer and
     * the record driver. Task thread.
     */
    private void setUp() throws Exception {
        taskThread.check("Setting up the task");
        VertexPayload payload = tdd.vertex().deserializePayload(Thread.currentThread().getContextClassLoader());
        TaskOutputs outputs = TaskOutputs.create(tdd, payload, channels, recordTimestamp);
        TaskInputs inputs = TaskInputs.create(tdd, payload, channels, info.taskName());
        TaskStateRestore restore = new TaskStateRestore(info.taskName(), tdd.restore(), services.checkpointStorage(),
                localState, taskThread);
        if (tdd.vertex().hasKeyedState()) {
            backend = restore.keyedStateBackend(services.keyedStateBackends(),
                    TaskStateRestore.backendSpec(tdd, payload, Thread.currentThread().getContextClassLoader(),
                            services.clock()));
        }
        OperatorChain c = OperatorChain.wire(info, payload.operators(), outputs, services.clock());
        chain = c;
        c.open(backend, recordTimestamp, restore.restoredCheckpointId(), restore.operatorStates(c.size()), tdd.jobGraph(),
                restore.restoredFrom(tdd.jobGraph().jobId().value()));
        if (payload.source() != null) {
            reader = payload.source().createReader(info.subtaskIndex(), info.parallelism());
            restore.restoreSourcePosition(reader);
        }
        checkpointer = new SubtaskCheckpointer(new SubtaskCheckpointer.Target(info.taskName(), tdd.jobGraph().jobId(),
                tdd.attemptId(), services.jobMaster(), services.checkpointStorage(), localState, inlineStateThreshold,
                SubtaskCheckpointer.Spill.defaults()),
                c, backend, reader, uploads, taskThread, () -> closing || lifecycle.isCancelled());
        driver = driverFor(payload, restore, inputs, c);
    }

    @SuppressWarnings("unchecked")
    private RecordDriver driverFor(VertexPayload payload, TaskStateRestore restore, TaskInputs inputs, OperatorChain c) {
        if (restore.restoredAsFinished()) {
            LOG.debug("Task {} had finished at checkpoint {}: it emits nothing", info.taskName(),
                    restore.restoredCheckpointId().getAsLong());
            return new FinishedDriver();
        }
        if (reader != null) {
            return new SourceDriver(reader, c, mailbox, lifecycle::isCancelled, recordTimestamp);
        }
        InputGateDriver.Keying keying = new InputGateDriver.Keying(
                (KeySelector<Object, ?>) payload.inputKeySelector(), backend,
                payload.inputKeySerializer() != null);
        return new InputGateDriver(info.taskName(), inputs, c, keying, checkpointer, recordTimestamp, mailbox,
                lifecycle::isCancelled);
    }

    /**
     * The input ended: unless a cancel came first, the operators finish, the outputs end and the
     * uploads still running are awaited, so their acknowledgements precede {@code FINISHED}. If an
     * operator needs a final checkpoint, the task then awaits it ({@link #awaitFinalCheckpoint}).
     */
    private void finish() throws Exception {
        if (!lifecycle.transitionTo(TaskPhase.FINISHING)) {
            return;
        }
        if (driver.finishesOperators()) {
            chain.finish();
        }
        chain.outputs().close();
        uploads.awaitAll();
        if (driver.finishesOperators() && chain.needsFinalCheckpoint()) {
            awaitFinalCheckpoint();
        }
    }

    /**
     * {@code AWAITING_FINAL_CHECKPOINT}: the job master hears it and triggers the task's checkpoints
     * directly; the task takes them from its mailbox until one completed, then its operators hand their
     * last output over (a two-phase-commit sink commits) and the uploads are awaited. A cancel meanwhile
     * interrupts the wait; nothing is handed over then.
     */
    private void awaitFinalCheckpoint() throws Exception {
        FinalCheckpointWait wait = checkpointer.awaitFinalCheckpoint();
        if (!lifecycle.transitionTo(TaskPhase.AWAITING_FINAL_CHECKPOINT)) {
            return;
        }
        if (!wait.await(mailbox, lifecycle::isCancelled)) {
            return;
        }
        LOG.debug("Task {}: {}; handing the last output over", info.taskName(), wait);
        chain.finishAfterFinalCheckpoint();
        uploads.awaitAll();
    }

    /** The last move, after everything was closed: {@code CANCELED}, {@code FAILED} or {@code FINISHED}. Task thread. */
    private void end(Throwable failure) {
        if (!lifecycle.isCancelled()) {
            boolean ended = failure == null ? lifecycle.transitionTo(TaskPhase.FINISHED) : fail(failure);
            if (ended) {
                return;
            }
        }
        // Not on failure: the peers would fail too, and their report (a released channel, whose cause
        // crosses the network only as text) could reach the job master before this task's and decide
        // the restart (an unrecoverable error would be restarted). The job master cancels the peers
        // first and releases the deployment's channels when every task has ended.
        channels.releaseRemote(cancelled());
        lifecycle.transitionTo(TaskPhase.CANCELED);
    }

    /** {@code FAILED} with {@code failure}; {@code false} if a cancel came first. */
    private boolean fail(Throwable failure) {
        if (causedByReleasedChannel(failure)) {
            // A peer was cancelled first and released the channel; the job is winding down anyway.
            LOG.debug("Task {} stopped because a channel was released", info.taskName(), failure);
        } else {
            LOG.warn("Task {} failed", info.taskName(), failure);
        }
        return lifecycle.transitionTo(TaskPhase.FAILED, failure);
    }

    private static boolean causedByReleasedChannel(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof ChannelReleasedException || c instanceof TaskCancelledException) {
                return true;
            }
        }
        return false;
    }

    private TaskCancelledException cancelled() {
        return new TaskCancelledException(info.taskName() + " was cancelled");
    }

    /** Closes the operators, the source reader and the keyed state backend, whatever happened. Task thread. */
    private void closeQuietly() {
        closing = true;
        OperatorChain c = chain;
        if (c != null) {
            c.closeQuietly();
        }
        if (reader != null) {
            try {
                reader.close();
            } catch (Throwable t) {
                LOG.debug("Closing the source reader of {} failed", info.taskName(), t);
            }
        }
        KeyedStateBackend keyed = backend;
        if (keyed != null) {
            try {
                keyed.close(); // after the operators; stops a snapshot still being written, frees native memory
            } catch (Throwable t) {
                LOG.debug("Closing the keyed state backend of {} failed", info.taskName(), t);
            }
        }
        if (lifecycle.isCancelled()) {
            channels.releaseInputGate(cancelled());
        }
    }
}
