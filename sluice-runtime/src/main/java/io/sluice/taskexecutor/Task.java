package io.sluice.taskexecutor;

import io.sluice.api.functions.Collector;
import io.sluice.api.functions.KeySelector;
import io.sluice.api.source.SourceReader;
import io.sluice.checkpoint.CheckpointException;
import io.sluice.checkpoint.CheckpointStorage;
import io.sluice.checkpoint.CorruptCheckpointException;
import io.sluice.checkpoint.CorruptStateFileException;
import io.sluice.checkpoint.StateRestoreException;
import io.sluice.checkpoint.TaskStateHandle;
import io.sluice.core.serialization.DataInputBuffer;
import io.sluice.core.serialization.DataOutputBuffer;
import io.sluice.core.serialization.Serializers;
import io.sluice.core.serialization.TypeSerializer;
import io.sluice.graph.JobEdge;
import io.sluice.graph.JobGraph;
import io.sluice.graph.JobVertex;
import io.sluice.graph.VertexPayload;
import io.sluice.job.ExecutionAttemptId;
import io.sluice.job.ExecutionState;
import io.sluice.protocol.JobMasterGateway;
import io.sluice.network.BarrierHandler;
import io.sluice.network.ChannelKey;
import io.sluice.network.CheckpointBarrier;
import io.sluice.network.EndOfPartition;
import io.sluice.network.InputGate;
import io.sluice.network.InputStatus;
import io.sluice.network.LocalChannel;
import io.sluice.network.ShuffleEnvironment;
import io.sluice.network.Partitioner;
import io.sluice.network.RecordHandler;
import io.sluice.network.RecordWriter;
import io.sluice.network.StreamInputProcessor;
import io.sluice.network.WatermarkHandler;
import io.sluice.operators.RecordTimestamp;
import io.sluice.api.eventtime.Watermarks;
import io.sluice.protocol.TaskDeploymentDescriptor;
import io.sluice.protocol.TaskExecutionState;
import io.sluice.protocol.TaskMetrics;
import io.sluice.protocol.TaskRestore;
import io.sluice.util.Clock;
import io.sluice.util.SystemClock;
import io.sluice.operators.OperatorContext;
import io.sluice.operators.Output;
import io.sluice.operators.StreamOperator;
import io.sluice.state.KeyedStateBackendParameters;
import io.sluice.state.StateBackends;
import io.sluice.state.KeyGroupRange;
import io.sluice.state.KeyGroups;
import io.sluice.state.KeyedStateBackend;
import io.sluice.state.KeyedStateSnapshot;
import io.sluice.state.UnreadableSnapshotException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One running subtask: a thread that reads its input (or its source), pushes records through its
 * operator chain and writes them to its output channels.
 *
 * <p>Threading: {@link #run()} owns the task thread and everything in the chain. Other threads
 * interact only through {@link #cancel()} and the mailbox ({@link #triggerCheckpoint},
 * {@link #notifyCheckpointComplete}), whose actions the task thread runs between records
 * (sources: every batch of {@value #SOURCE_BATCH} records; other tasks: between buffers).
 *
 * <p>Checkpoints: the synchronous part (source position, keyed-state copy, barrier forwarded
 * downstream) runs on the task thread; serializing and writing the state file runs on the I/O
 * executor, which then acknowledges to the job master. A serialized snapshot of at most
 * {@code inlineStateThreshold} bytes is not written to a file but acknowledged inline, inside its
 * {@link TaskStateHandle}; restoring it reads nothing from storage.
 *
 * <p>Finishing: a source that reached the end of its input drains its mailbox once more, so a
 * trigger that arrived before that is still taken (its barrier precedes the end of its outputs);
 * a later trigger is dropped. Before it reports {@code FINISHED} a task waits for its state
 * uploads, so its acknowledgement reaches the job master first: a task that reports
 * {@code FINISHED} while a checkpoint still awaits it never took that snapshot, and the job master
 * records it as finished in that checkpoint. A task restored as finished ({@link TaskRestore#finished})
 * emits nothing (its operators' {@code finish} already ran before that checkpoint) and ends its
 * outputs at once.
 */
public final class Task implements Runnable {
    private static final Logger LOG = LoggerFactory.getLogger(Task.class);
    /** Records a source emits between two looks at the mailbox: small enough for prompt barriers. */
    static final int SOURCE_BATCH = 512;
    /** How long an input task waits for data before it looks at processing time again (timers, idleness). */
    static final long INPUT_POLL_TIMEOUT_NANOS = 10_000_000L;

    private final TaskDeploymentDescriptor tdd;
    private final JobMasterGateway jobMaster;
    private final ShuffleEnvironment shuffle;
    private final CheckpointStorage checkpointStorage;
    private final ExecutorService ioExecutor;
    private final TaskLocalStateStore localState;
    /** Snapshots of at most this many bytes are acknowledged inline instead of written to a state file; -1: never. */
    private final int inlineStateThreshold;
    /** Uploads in flight; a cancelled task interrupts them rather than leave threads waiting on storage. */
    private final java.util.Set<Future<?>> uploads = java.util.concurrent.ConcurrentHashMap.newKeySet();
    private final Consumer<TaskExecutionState> stateListener;
    private final ConcurrentLinkedQueue<MailboxAction> mailbox = new ConcurrentLinkedQueue<>();
    private final String taskName;
    /** The context class loader of the task thread: the job's own loader for a job from a jar. */
    private final ClassLoader userCodeClassLoader;
    private final Clock clock;
    private final StateBackends stateBackends;
    /** The event timestamp of the record in the chain; shared by the input, the operators and the writers. */
    private final RecordTimestamp recordTimestamp = new RecordTimestamp();

    private volatile boolean cancelled;
    private volatile Thread thread;
    private volatile ExecutionState state = ExecutionState.DEPLOYING;

    // Task-thread state; read racily by metrics.
    private long recordsIn;
    private List<RecordWriter<?>> writers = List.of();
    private InputGate inputGate;
    private List<StreamOperator<?>> operators = List.of();
    /** Set on the task thread in set-up; volatile for metrics read by other threads. */
    private volatile KeyedStateBackend backend;
    private SourceReader<?> reader;
    private final List<LocalChannel> ownedChannels = new ArrayList<>();
    /** The ends of this attempt's channels to and from other task executors (guarded by ownedChannels). */
    private final List<LocalChannel> remoteChannels = new ArrayList<>();

    /**
     * @param userCodeClassLoader loads the job's user code; the task thread's context class loader
     * @param clock               processing time for the task's operators (timers, periodic watermarks, idleness)
     * @param stateBackends       creates the task's keyed state backend, of the job's {@code state.backend}
     */
    Task(TaskDeploymentDescriptor tdd, JobMasterGateway jobMaster, ShuffleEnvironment shuffle,
         CheckpointStorage checkpointStorage, ExecutorService ioExecutor, Consumer<TaskExecutionState> stateListener,
         TaskLocalStateStore localState, ClassLoader userCodeClassLoader, Clock clock, StateBackends stateBackends) {
        this.userCodeClassLoader = userCodeClassLoader;
        this.stateBackends = java.util.Objects.requireNonNull(stateBackends, "stateBackends");
        this.clock = java.util.Objects.requireNonNull(clock, "clock");
        this.localState = tdd.jobGraph().config().localRecovery() ? localState : null;
        int threshold = tdd.jobGraph().config().inlineStateThreshold();
        this.inlineStateThreshold = threshold > 0 ? threshold : -1;
        this.tdd = tdd;
        this.jobMaster = jobMaster;
        this.shuffle = shuffle;
        this.checkpointStorage = checkpointStorage;
        this.ioExecutor = ioExecutor;
        this.stateListener = stateListener;
        JobVertex v = tdd.vertex();
        this.taskName = v.name() + " (" + (tdd.subtaskIndex() + 1) + "/" + v.parallelism() + ")";
    }

    public ExecutionAttemptId attemptId() {
        return tdd.attemptId();
    }

    public ExecutionState state() {
        return state;
    }

    public String name() {
        return taskName;
    }

    /** Starts the task thread. */
    void start() {
        Thread t = new Thread(this, "sluice-task-" + taskName + "@" + tdd.attemptId().deployment());
        t.setDaemon(true);
        t.setContextClassLoader(userCodeClassLoader);
        thread = t;
        t.start();
    }

    /** Asks the task to stop; returns at once. The task reports CANCELED when its thread ends. */
    void cancel() {
        if (cancelled || state.isTerminal()) {
            return;
        }
        cancelled = true;
        Throwable cause = new TaskCancelledException(taskName + " was cancelled");
        InputGate gate = inputGate;
        if (gate != null) {
            gate.release(cause);
        }
        synchronized (ownedChannels) {
            for (LocalChannel c : ownedChannels) {
                c.release(cause);
            }
        }
        Thread t = thread;
        if (t != null) {
            t.interrupt();
        }
        for (Future<?> upload : uploads) {
            upload.cancel(true);
        }
    }

    void triggerCheckpoint(long checkpointId, long timestampMillis) {
        mailbox.add(() -> performCheckpoint(checkpointId, timestampMillis));
    }

    void notifyCheckpointComplete(long checkpointId) {
        if (localState != null) {
            localState.confirm(tdd.jobGraph().jobId(), tdd.vertex().id(), tdd.subtaskIndex(), checkpointId);
        }
        mailbox.add(() -> {
            for (StreamOperator<?> op : operators) {
                op.notifyCheckpointComplete(checkpointId);
            }
        });
    }

    TaskMetrics metrics() {
        long out = 0;
        for (RecordWriter<?> w : writers) {
            out += w.recordsWritten();
        }
        long lateDropped = 0;
        for (StreamOperator<?> op : operators) {
            if (op instanceof io.sluice.operators.windowing.WindowOperator<?, ?, ?, ?> window) {
                lateDropped += window.lateRecordsDropped();
            }
        }
        return new TaskMetrics(tdd.attemptId(), state, recordsIn, out, lateDropped);
    }

    /** Total time this task's output was blocked on full channels (backpressure), in nanoseconds. Any thread. */
    long outputBlockedNanos() {
        long sum = 0;
        for (RecordWriter<?> w : writers) {
            sum += w.blockedNanos();
        }
        return sum;
    }

    /** The deployment descriptor of this attempt. */
    TaskDeploymentDescriptor descriptor() {
        return tdd;
    }

    @Override
    public void run() {
        Throwable failure = null;
        try {
            setUp();
            transition(ExecutionState.RUNNING, null);
            boolean restoredFinished = tdd.restore() != null && tdd.restore().finished();
            if (restoredFinished) {
                LOG.debug("Task {} had finished at checkpoint {}: it emits nothing", taskName, tdd.restore().checkpointId());
            } else if (reader != null) {
                runSource();
            } else {
                runInput();
            }
            if (!cancelled) {
                if (!restoredFinished) {
                    for (StreamOperator<?> op : operators) {
                        op.finish();
                    }
                }
                for (RecordWriter<?> w : writers) {
                    w.close();
                }
                awaitUploads();
            }
        } catch (Throwable t) {
            failure = t;
        } finally {
            closeQuietly();
        }
        if (cancelled) {
            // Not on failure: the peers would fail too, and their report (a released channel, whose cause
            // crosses the network only as text) could reach the job master before this task's and decide
            // the restart (an unrecoverable error would be restarted). The job master cancels the peers
            // first and releases the deployment's channels when every task has ended.
            releaseRemoteChannels(new TaskCancelledException(taskName + " was cancelled"));
            transition(ExecutionState.CANCELED, null);
        } else if (failure != null) {
            if (causedByReleasedChannel(failure)) {
                // A peer was cancelled first and released the channel; the job is winding down anyway.
                LOG.debug("Task {} stopped because a channel was released", taskName, failure);
            } else {
                LOG.warn("Task {} failed", taskName, failure);
            }
            transition(ExecutionState.FAILED, failure);
        } else {
            transition(ExecutionState.FINISHED, null);
        }
        Thread.currentThread().setContextClassLoader(null); // the ended thread keeps no job class loader alive
    }

    private static boolean causedByReleasedChannel(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof io.sluice.network.ChannelReleasedException || c instanceof TaskCancelledException) {
                return true;
            }
        }
        return false;
    }

    private void transition(ExecutionState next, Throwable failure) {
        state = next;
        stateListener.accept(new TaskExecutionState(tdd.attemptId(), next, failure));
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private void setUp() throws Exception {
        JobGraph graph = tdd.jobGraph();
        JobVertex vertex = tdd.vertex();
        int subtask = tdd.subtaskIndex();
        VertexPayload payload = vertex.deserializePayload(Thread.currentThread().getContextClassLoader());
        int deployment = tdd.attemptId().deployment();

        // Outputs
        List<RecordWriter<?>> ws = new ArrayList<>();
        List<RecordWriter<?>> mainWriters = new ArrayList<>();
        java.util.Map<String, List<RecordWriter<?>>> sideWriters = new java.util.HashMap<>();
        for (int edgeId : vertex.outputEdgeIds()) {
            JobEdge edge = graph.edge(edgeId);
            VertexPayload.OutputSpec spec = payload.outputs().get(edgeId);
            int consumers = graph.vertex(edge.targetVertexId()).parallelism();
            Partitioner partitioner = switch (edge.partitioning()) {
                case FORWARD -> Partitioner.forward();
                case REBALANCE -> Partitioner.rebalance();
                case HASH -> Partitioner.hash((KeySelector) spec.keySelector(), vertex.maxParallelism());
            };
            List<LocalChannel> channels = new ArrayList<>();
            for (int consumer : partitioner.consumerSubtasks(subtask, consumers)) {
                channels.add(outputChannel(new ChannelKey(graph.jobId(), deployment, edgeId, subtask, consumer)));
            }
            synchronized (ownedChannels) {
                ownedChannels.addAll(channels);
            }
            RecordWriter<?> writer = new RecordWriter<>(channels, (TypeSerializer) spec.serializer(), partitioner,
                    shuffle.bufferSize(), spec.timestamped() ? recordTimestamp : null);
            ws.add(writer);
            if (spec.sideOutput() == null) {
                mainWriters.add(writer);
            } else {
                sideWriters.computeIfAbsent(spec.sideOutput(), k -> new ArrayList<>()).add(writer);
            }
        }
        writers = ws;
        this.mainWriters = mainWriters;
        this.sideWriters = sideWriters;

        // Inputs
        List<LocalChannel> inChannels = new ArrayList<>();
        List<TypeSerializer<?>> inSerializers = new ArrayList<>();
        List<Boolean> inTimestamped = new ArrayList<>();
        for (int edgeId : vertex.inputEdgeIds()) {
            JobEdge edge = graph.edge(edgeId);
            int producers = graph.vertex(edge.sourceVertexId()).parallelism();
            TypeSerializer<?> serializer = payload.inputSerializers().get(edgeId);
            boolean timestamped = payload.timestampedInputs().contains(edgeId);
            if (edge.partitioning() == io.sluice.graph.PartitionKind.FORWARD) {
                inChannels.add(inputChannel(new ChannelKey(graph.jobId(), deployment, edgeId, subtask, subtask)));
                inSerializers.add(serializer);
                inTimestamped.add(timestamped);
            } else {
                for (int p = 0; p < producers; p++) {
                    inChannels.add(inputChannel(new ChannelKey(graph.jobId(), deployment, edgeId, p, subtask)));
                    inSerializers.add(serializer);
                    inTimestamped.add(timestamped);
                }
            }
        }
        inputTimestamped = new boolean[inTimestamped.size()];
        for (int i = 0; i < inputTimestamped.length; i++) {
            inputTimestamped[i] = inTimestamped.get(i);
        }
        if (!inChannels.isEmpty()) {
            inputGate = new InputGate(taskName, inChannels);
            if (cancelled) {
                inputGate.release(new TaskCancelledException(taskName + " was cancelled"));
            }
        }

        // Keyed state
        if (vertex.hasKeyedState()) {
            KeyGroupRange range = KeyGroups.rangeForSubtask(subtask, vertex.maxParallelism(), vertex.parallelism());
            TypeSerializer<?> keySerializer = payload.inputKeySerializer() != null
                    ? payload.inputKeySerializer() : Serializers.dynamic();
            backend = createKeyedStateBackend(range, keySerializer);
            TaskRestore restore = tdd.restore();
            if (restore != null && !restore.keyedStateHandles().isEmpty()) {
                restoreKeyedState(backend, restore);
            }
        }

        // Operator chain, wired tail to head
        operators = payload.operators();
        Output<?> out = writers.isEmpty() ? record -> { } : new WriterOutput<>(mainWriters, sideWriters);
        List<Output<?>> outputs = new ArrayList<>();
        for (int i = operators.size() - 1; i >= 0; i--) {
            outputs.add(0, out);
            out = new ChainedOutput<>((StreamOperator) operators.get(i));
        }
        Output<?> headInput = out;
        for (int i = operators.size() - 1; i >= 0; i--) {
            StreamOperator<?> op = operators.get(i);
            KeyedStateBackend opBackend = i == 0 ? backend : null;
            TaskRuntimeContext ctx = new TaskRuntimeContext(taskName, subtask, vertex.parallelism(),
                    vertex.maxParallelism(), tdd.attemptNumber(), opBackend, op.name());
            Output<?> opOut = outputs.get(i);
            op.open(new OperatorContext() {
                @Override
                public io.sluice.api.functions.RuntimeContext runtimeContext() {
                    return ctx;
                }

                @Override
                public <T> Output<T> output() {
                    return (Output<T>) opOut;
                }

                @Override
                public KeyedStateBackend keyedStateBackend() {
                    return opBackend;
                }

                @Override
                public RecordTimestamp recordTimestamp() {
                    return recordTimestamp;
                }

                @Override
                public Clock clock() {
                    return clock;
                }
            });
        }

        // Source
        if (payload.source() != null) {
            SourceReader<?> r = payload.source().createReader(subtask, vertex.parallelism());
            TaskRestore restore = tdd.restore();
            if (restore != null && restore.sourcePosition() != null) {
                r.restorePosition(restore.sourcePosition());
            }
            reader = r;
            sourceOutput = (Output<Object>) headInput;
        } else {
            this.headInput = (Output<Object>) headInput;
            this.keySelector = (KeySelector<Object, ?>) payload.inputKeySelector();
            this.keySerializerDeclared = payload.inputKeySerializer() != null;
            this.inputSerializers = inSerializers;
        }
    }

    /**
     * The producer's end of {@code key}: in memory when the consumer subtask runs in this task
     * executor (same data address, or no addresses at all), else the end a remote consumer drains.
     */
    private LocalChannel outputChannel(ChannelKey key) {
        if (!tdd.isRemote(key.consumerSubtask())) {
            return shuffle.channel(key);
        }
        LocalChannel channel = shuffle.remoteOutputChannel(key);
        synchronized (ownedChannels) {
            remoteChannels.add(channel);
        }
        return channel;
    }

    /** The consumer's end of {@code key}: in memory, or filled from the producer's task executor. */
    private LocalChannel inputChannel(ChannelKey key) {
        if (!tdd.isRemote(key.producerSubtask())) {
            return shuffle.channel(key);
        }
        LocalChannel channel = shuffle.remoteInputChannel(key, tdd.dataAddress(key.producerSubtask()));
        synchronized (ownedChannels) {
            remoteChannels.add(channel);
        }
        return channel;
    }

    /**
     * Releases the network ends of this attempt's channels when it was cancelled: the peers in other
     * task executors hear of it at once instead of when the deployment is released. A finished task
     * keeps them (its end of partition may still be on its way), and so does a failed one (see
     * {@link #run}).
     */
    private void releaseRemoteChannels(Throwable cause) {
        List<LocalChannel> remote;
        synchronized (ownedChannels) {
            remote = List.copyOf(remoteChannels);
        }
        for (LocalChannel c : remote) {
            c.release(cause);
        }
    }

    private Output<Object> sourceOutput;
    private Output<Object> headInput;
    private KeySelector<Object, ?> keySelector;
    private boolean keySerializerDeclared;
    private List<TypeSerializer<?>> inputSerializers;
    private boolean[] inputTimestamped;
    private List<RecordWriter<?>> mainWriters;
    private java.util.Map<String, List<RecordWriter<?>>> sideWriters;

    @SuppressWarnings("unchecked")
    private void runSource() throws Exception {
        SourceReader<Object> r = (SourceReader<Object>) reader;
        Output<Object> head = sourceOutput;
        Collector<Object> counting = record -> {
            recordsIn++;
            head.collect(record);
        };
        while (!cancelled) {
            drainMailbox();
            advanceProcessingTime();
            int n = r.emit(counting, SOURCE_BATCH);
            if (n == SourceReader.END_OF_INPUT) {
                // A trigger that came before the end is taken now, at the final position; later ones are dropped.
                drainMailbox();
                if (!cancelled) {
                    // The end of a bounded input: event time is over; every pending event-time timer fires.
                    head.emitWatermark(Watermarks.MAX);
                }
                break;
            }
            if (n < SOURCE_BATCH) {
                // The reader is caught up (a rate-limited one parks inside emit until its next record is due,
                // and then emits fewer than a batch): hand partly filled buffers on before it waits again.
                flushWriters();
            }
        }
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private void runInput() throws Exception {
        if (inputGate == null) {
            throw new IllegalStateException("Task " + taskName + " has neither a source nor inputs");
        }
        StreamInputProcessor<Object> processor = new StreamInputProcessor<>(inputGate, (List) inputSerializers,
                () -> {
                    drainMailbox();
                    advanceProcessingTime();
                    flushWriters();
                }, inputTimestamped, recordTimestamp, INPUT_POLL_TIMEOUT_NANOS);
        Output<Object> head = headInput;
        RecordHandler<Object> handler;
        if (keySelector != null) {
            KeySelector<Object, ?> ks = keySelector;
            KeyedStateBackend b = backend;
            KeyTypeCheck keyCheck = new KeyTypeCheck(taskName, keySerializerDeclared);
            handler = record -> {
                recordsIn++;
                Object key = ks.getKey(record);
                keyCheck.check(key);
                b.setCurrentKey(key);
                head.collect(record);
            };
        } else {
            handler = record -> {
                recordsIn++;
                head.collect(record);
            };
        }
        BarrierHandler barriers = new BarrierHandler() {
            @Override
            public void onAligned(CheckpointBarrier barrier) throws Exception {
                performCheckpoint(barrier.checkpointId(), barrier.timestampMillis());
            }

            @Override
            public void onAborted(long checkpointId) {
                jobMaster.declineCheckpoint(tdd.attemptId(), checkpointId,
                        new CheckpointException("Barrier alignment of checkpoint " + checkpointId + " at " + taskName
                                + " was abandoned because a newer checkpoint's barrier arrived"));
            }
        };
        WatermarkHandler watermarks = new WatermarkHandler() {
            @Override
            public void onWatermark(long watermark) {
                head.emitWatermark(watermark);
            }

            @Override
            public void onIdleStatus(boolean idle) {
                head.emitIdleStatus(idle);
            }
        };
        while (!cancelled) {
            drainMailbox();
            InputStatus status = processor.processNext(handler, barriers, watermarks);
            if (status == InputStatus.END_OF_INPUT) {
                break;
            }
            advanceProcessingTime(); // a clock read per buffer: cheap, and timers fire while input is busy too
        }
    }

    /** Tells the operators the processing time (timers, periodic watermarks, idleness). Task thread. */
    private void advanceProcessingTime() throws Exception {
        long now = clock.currentTimeMillis();
        for (StreamOperator<?> op : operators) {
            op.advanceProcessingTime(now);
        }
    }

    private void drainMailbox() throws Exception {
        MailboxAction action;
        while ((action = mailbox.poll()) != null) {
            action.run();
        }
    }

    /** Work handed to the task thread by other threads. */
    @FunctionalInterface
    private interface MailboxAction {
        void run() throws Exception;
    }

    /**
     * Waits until every state upload of this task acknowledged or declined (each ends on its own or
     * with a storage timeout; a cancel interrupts it), so those messages reach the job master before
     * this task's FINISHED.
     */
    private void awaitUploads() throws InterruptedException {
        for (Future<?> upload : List.copyOf(uploads)) {
            try {
                upload.get();
            } catch (java.util.concurrent.ExecutionException | java.util.concurrent.CancellationException e) {
                LOG.debug("A state upload of {} ended abnormally", taskName, e);
            }
        }
    }

    private void flushWriters() throws InterruptedException {
        for (RecordWriter<?> w : writers) {
            w.flushAll();
        }
    }

    /** The synchronous part of a checkpoint, on the task thread; the upload continues on the I/O executor. */
    private void performCheckpoint(long checkpointId, long timestampMillis) throws Exception {
        for (StreamOperator<?> op : operators) {
            op.prepareSnapshot(checkpointId);
        }
        {
            byte[] position = reader == null ? null : reader.snapshotPosition();
            KeyedStateSnapshot snapshot = backend == null ? null : backend.snapshot();
            KeyGroupRange range = backend == null ? null : backend.keyGroupRange();
            CheckpointBarrier barrier = new CheckpointBarrier(checkpointId, timestampMillis);
            for (RecordWriter<?> w : writers) {
                w.broadcastEvent(barrier);
            }
            JobVertex v = tdd.vertex();
            int subtask = tdd.subtaskIndex();
            CompletableFuture<Future<?>> self = new CompletableFuture<>();
            Future<?> upload = ioExecutor.submit(() -> {
                try {
                    TaskStateHandle handle;
                    if (snapshot == null) {
                        handle = new TaskStateHandle(v.id(), subtask, null, 0, position, null);
                    } else {
                        DataOutputBuffer out = new DataOutputBuffer(4096);
                        snapshot.writeTo(out);
                        byte[] bytes = out.toByteArray();
                        if (bytes.length <= inlineStateThreshold) {
                            // Small: carried in the metadata, which the job manager holds in memory.
                            handle = TaskStateHandle.inline(v.id(), subtask, bytes, position, range);
                        } else {
                            String file = checkpointStorage.writeTaskState(tdd.jobGraph().jobId(), checkpointId,
                                    v.id(), subtask, bytes);
                            if (localState != null) {
                                localState.store(tdd.jobGraph().jobId(), v.id(), subtask, checkpointId, file, bytes);
                            }
                            handle = new TaskStateHandle(v.id(), subtask, file, bytes.length, position, range);
                        }
                    }
                    jobMaster.acknowledgeCheckpoint(tdd.attemptId(), checkpointId, handle);
                } catch (Throwable t) {
                    if (cancelled) {
                        LOG.debug("Task {} was cancelled while writing its state for checkpoint {}", taskName, checkpointId, t);
                    } else {
                        LOG.warn("Task {} could not write its state for checkpoint {}", taskName, checkpointId, t);
                    }
                    jobMaster.declineCheckpoint(tdd.attemptId(), checkpointId, t);
                } finally {
                    self.thenAccept(uploads::remove);
                }
            });
            uploads.add(upload);
            self.complete(upload);
            if (cancelled) {
                upload.cancel(true);
            }
        }
    }

    /**
     * The task's keyed state backend, of the job's state backend ({@code state.backend}) or the task
     * executor's default. Its memory is charged to the task's slot, named by job and subtask index (slot
     * sharing puts the subtasks with one index of all vertices of a job in one slot). Task thread.
     */
    private KeyedStateBackend createKeyedStateBackend(KeyGroupRange range, TypeSerializer<?> keySerializer) {
        JobVertex v = tdd.vertex();
        String slot = tdd.jobGraph().jobId().value() + "/" + tdd.subtaskIndex();
        return stateBackends.backend(tdd.jobGraph().config().stateBackend()).createKeyedStateBackend(
                new KeyedStateBackendParameters(taskName, slot, range, v.maxParallelism(), keySerializer, clock,
                        tdd.jobGraph().config().incrementalCheckpoints()));
    }

    /** The task's keyed state backend once set up, or {@code null}; for metrics, any thread. */
    KeyedStateBackend keyedStateBackend() {
        return backend;
    }

    /**
     * Restores the keyed state from the restore's handles. An unusable snapshot — a corrupt state
     * file or one that cannot be decoded — fails with a {@link StateRestoreException} naming the
     * checkpoint, the subtask and the file, so that the job master falls back to an older
     * checkpoint; an unreachable storage fails with the storage error, to be retried. Task thread.
     */
    private void restoreKeyedState(KeyedStateBackend keyed, TaskRestore restore) {
        List<TaskStateHandle> handles = restore.keyedStateHandles();
        List<DataInputBuffer> snapshots = new ArrayList<>(handles.size());
        for (TaskStateHandle h : handles) {
            try {
                snapshots.add(new DataInputBuffer(restoreBytesOf(restore.checkpointId(), h)));
            } catch (CorruptCheckpointException e) {
                throw unusableState(restore, h, e);
            }
        }
        try {
            keyed.restore(snapshots);
        } catch (UnreadableSnapshotException e) {
            throw unusableState(restore, handles.get(e.snapshotIndex()), e);
        } catch (RuntimeException e) {
            if (io.sluice.api.errors.UnrecoverableJobException.isCauseOf(e)
                    || io.sluice.checkpoint.CheckpointFailureReason.isStorageFailure(e)) {
                throw e; // fails the job at once / retried as a storage error
            }
            // The restoring code itself fails on this state (a key in another key group, a serializer
            // that throws): named as a restore failure, so that repeating it is seen as one no restart fixes.
            throw new io.sluice.checkpoint.KeyedStateRestoreException(taskName, restore.checkpointId(), e);
        }
    }

    private StateRestoreException unusableState(TaskRestore restore, TaskStateHandle handle, Throwable cause) {
        StateRestoreException e = new StateRestoreException(taskName, restore.checkpointId(), handle.vertexId(),
                handle.subtaskIndex(), handle.stateFile(), cause);
        LOG.warn(e.getMessage());
        return e;
    }

    /**
     * The serialized snapshot behind {@code handle}: inline bytes as they are (no I/O), else the
     * task-local copy if there is a matching one, else the state file read from checkpoint storage
     * (checked against its checksum and the size the metadata records). Task thread.
     */
    private byte[] restoreBytesOf(long checkpointId, TaskStateHandle handle) {
        if (handle.isInline()) {
            return handle.inlineState();
        }
        byte[] local = localCopyOf(checkpointId, handle);
        if (local != null) {
            return local;
        }
        byte[] data = checkpointStorage.readTaskState(handle.stateFile());
        if (data.length != handle.stateSize()) {
            throw new CorruptStateFileException(handle.stateFile(), "it holds " + data.length
                    + " bytes of state, but the checkpoint metadata records " + handle.stateSize());
        }
        return data;
    }

    /** The local copy of a state file this very subtask wrote, if task-local recovery has a matching one. */
    private byte[] localCopyOf(long checkpointId, TaskStateHandle handle) {
        if (localState == null || handle.vertexId() != tdd.vertex().id() || handle.subtaskIndex() != tdd.subtaskIndex()) {
            return null;
        }
        return localState.retrieve(tdd.jobGraph().jobId(), handle.vertexId(), handle.subtaskIndex(), checkpointId,
                handle.stateFile(), handle.stateSize()).orElse(null);
    }

    private void closeQuietly() {
        for (StreamOperator<?> op : operators) {
            try {
                op.close();
            } catch (Throwable t) {
                LOG.debug("Closing operator {} of {} failed", op.name(), taskName, t);
            }
        }
        if (reader != null) {
            try {
                reader.close();
            } catch (Throwable t) {
                LOG.debug("Closing the source reader of {} failed", taskName, t);
            }
        }
        if (inputGate != null && cancelled) {
            inputGate.release(new TaskCancelledException(taskName + " was cancelled"));
        }
        KeyedStateBackend keyed = backend;
        if (keyed != null) {
            try {
                keyed.close(); // after the operators: they may touch state in close; stops a snapshot still being written
            } catch (Throwable t) {
                LOG.warn("Closing the keyed state backend of {} failed", taskName, t);
            }
        }
    }
}
