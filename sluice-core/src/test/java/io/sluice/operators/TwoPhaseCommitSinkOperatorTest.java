package io.sluice.operators;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.api.functions.FakeRuntimeContext;
import io.sluice.api.functions.RuntimeContext;
import io.sluice.api.sink.Committer;
import io.sluice.api.sink.SinkUnavailableException;
import io.sluice.api.sink.SinkWriter;
import io.sluice.api.sink.TwoPhaseCommitSink;
import io.sluice.core.serialization.Serializers;
import io.sluice.core.serialization.TypeSerializer;
import io.sluice.state.KeyedStateBackend;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The two-phase-commit sink operator: its state format, and the end of a bounded input (the last output
 * waits for a final checkpoint with checkpoints, and is committed at once without).
 */
class TwoPhaseCommitSinkOperatorTest {
    /** What the sink of one test did; static because the sink travels as a serializable copy in real jobs. */
    private static final Map<String, Log> LOGS = new ConcurrentHashMap<>();

    private final String id = UUID.randomUUID().toString();

    @AfterEach
    void release() {
        LOGS.remove(id);
    }

    @Test
    void pendingCommittablesRoundTripThroughTheStateFormat() {
        List<PendingCommits.Entry<String>> entries = List.of(new PendingCommits.Entry<>(3, "part-0-a-0", 11),
                new PendingCommits.Entry<>(4, "part-0-a-1", 12));
        byte[] state = TwoPhaseCommitSinkOperator.encode(entries, Serializers.STRING);
        List<PendingCommits.Entry<String>> back = TwoPhaseCommitSinkOperator.decode(state, Serializers.STRING, "Sink: x");
        assertThat(back).extracting(PendingCommits.Entry::checkpointId).containsExactly(3L, 4L);
        assertThat(back).extracting(PendingCommits.Entry::committable).containsExactly("part-0-a-0", "part-0-a-1");
    }

    @Test
    void withCheckpointsTheLastOutputIsNotCommittedAtFinishButWhenTheFinalCheckpointCompletes() throws Exception {
        Log log = new Log();
        LOGS.put(id, log);
        TwoPhaseCommitSinkOperator<String, String> op = new TwoPhaseCommitSinkOperator<>(new RecordingSink(id), "Sink: t");
        op.open(context(Duration.ofSeconds(1)));
        op.processElement("a");
        op.prepareSnapshot(1);
        op.processElement("b");

        op.finish();

        assertThat(log.endOfInputs).isEqualTo(1);
        assertThat(log.committed).as("nothing committed at the end of the input").isEmpty();
        assertThat(op.needsFinalCheckpoint()).isTrue();
        assertThat(op.commitStats().pendingCommittables()).as("checkpoint 1's and the last output").isEqualTo(2);
        assertThat(decode(op.snapshotState(99))).as("the last output is in no checkpoint before the final one")
                .extracting(PendingCommits.Entry::committable).containsExactly("pre-1:[a]");

        op.prepareSnapshot(2); // the final checkpoint, triggered at the task directly
        List<PendingCommits.Entry<String>> state = decode(op.snapshotState(2));
        assertThat(log.preCommits).as("the writer is not asked to pre-commit after its input ended").containsExactly(1L);
        assertThat(state).extracting(PendingCommits.Entry::checkpointId).containsExactly(1L, 2L);
        assertThat(state).extracting(PendingCommits.Entry::committable).containsExactly("pre-1:[a]", "end:[b]");
        assertThat(log.committed).as("not before the checkpoint completes").isEmpty();

        op.notifyCheckpointComplete(2);
        op.finishAfterFinalCheckpoint();

        assertThat(log.committed).containsExactly("pre-1:[a]", "end:[b]");
        assertThat(op.needsFinalCheckpoint()).as("nothing pending any more").isFalse();
        op.close();
        assertThat(log.committed).as("committed once").hasSize(2);
    }

    @Test
    void aLastPreCommitTheSinksSystemDoesNotAnswerIsAskedAgainAtEachFinalCheckpointUntilItSucceeds() throws Exception {
        Log log = new Log();
        LOGS.put(id, log);
        log.unavailableEnds = 2;
        TwoPhaseCommitSinkOperator<String, String> op = new TwoPhaseCommitSinkOperator<>(new RecordingSink(id), "Sink: t");
        op.open(context(Duration.ofSeconds(1)));
        op.processElement("a");

        op.finish(); // the system refuses: the task does not fail, and the output waits

        assertThat(op.needsFinalCheckpoint()).as("the last output is not pre-committed yet").isTrue();
        assertThat(op.commitStats().pendingCommittables()).isZero();
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> op.prepareSnapshot(3))
                .as("the first final checkpoint is declined").isInstanceOf(SinkUnavailableException.class);
        assertThat(op.needsFinalCheckpoint()).isTrue();

        op.prepareSnapshot(4); // the system answers
        assertThat(log.endOfInputs).isEqualTo(3);
        assertThat(decode(op.snapshotState(4))).extracting(PendingCommits.Entry::checkpointId).containsExactly(4L);
        op.notifyCheckpointComplete(4);
        op.finishAfterFinalCheckpoint();

        assertThat(log.committed).containsExactly("end:[a]");
        assertThat(op.needsFinalCheckpoint()).isFalse();
        op.close();
    }

    @Test
    void aCancelWhileAwaitingTheFinalCheckpointCommitsNothing() throws Exception {
        Log log = new Log();
        LOGS.put(id, log);
        TwoPhaseCommitSinkOperator<String, String> op = new TwoPhaseCommitSinkOperator<>(new RecordingSink(id), "Sink: t");
        op.open(context(Duration.ofSeconds(1)));
        op.processElement("a");
        op.finish();
        op.prepareSnapshot(5);
        op.notifyCheckpointAborted(5);

        op.close(); // cancelled: the task closes its operators without the final checkpoint's completion

        assertThat(log.committed).isEmpty();
        assertThat(log.closed).isTrue();
    }

    @Test
    void withoutCheckpointsTheLastOutputIsCommittedAtFinish() throws Exception {
        Log log = new Log();
        LOGS.put(id, log);
        TwoPhaseCommitSinkOperator<String, String> op = new TwoPhaseCommitSinkOperator<>(new RecordingSink(id), "Sink: t");
        op.open(context(null));
        op.processElement("a");

        op.finish();

        assertThat(log.committed).containsExactly("end:[a]");
        assertThat(op.needsFinalCheckpoint()).isFalse();
        op.close();
    }

    @Test
    void withCheckpointsAndNothingPendingAtTheEndTheTaskNeedsNoFinalCheckpoint() throws Exception {
        Log log = new Log();
        LOGS.put(id, log);
        log.emptyEnd = true;
        TwoPhaseCommitSinkOperator<String, String> op = new TwoPhaseCommitSinkOperator<>(new RecordingSink(id), "Sink: t");
        op.open(context(Duration.ofSeconds(1)));
        op.processElement("a");
        op.prepareSnapshot(1);
        op.notifyCheckpointComplete(1);
        op.finishAfterFinalCheckpoint(); // waits for checkpoint 1's commit

        op.finish();

        assertThat(log.committed).containsExactly("pre-1:[a]");
        assertThat(op.needsFinalCheckpoint()).as("everything it wrote is committed").isFalse();
        op.close();
    }

    private static List<PendingCommits.Entry<String>> decode(byte[] state) {
        return TwoPhaseCommitSinkOperator.decode(state, Serializers.STRING, "Sink: t");
    }

    /** What the writer and committer of one test saw. */
    private static final class Log {
        final List<Long> preCommits = Collections.synchronizedList(new ArrayList<>());
        final List<String> committed = Collections.synchronizedList(new ArrayList<>());
        volatile int endOfInputs;
        volatile boolean closed;
        /** Whether endOfInput returns nothing (no records since the last pre-commit). */
        volatile boolean emptyEnd;
        /** How many endOfInput calls throw SinkUnavailableException (keeping the buffer) before one answers. */
        volatile int unavailableEnds;
    }

    /** Committables are strings naming what was pre-committed: {@code pre-<checkpoint>:[records]} or {@code end:[records]}. */
    private record RecordingSink(String id) implements TwoPhaseCommitSink<String, String> {
        @Override
        public SinkWriter<String, String> createWriter(RuntimeContext context, List<String> restored) {
            Log log = LOGS.get(id);
            return new SinkWriter<>() {
                private final List<String> buffer = new ArrayList<>();

                @Override
                public void write(String value) {
                    buffer.add(value);
                }

                @Override
                public List<String> preCommit(long checkpointId) {
                    log.preCommits.add(checkpointId);
                    return drain("pre-" + checkpointId);
                }

                @Override
                public List<String> endOfInput() throws SinkUnavailableException {
                    log.endOfInputs++;
                    if (log.unavailableEnds > 0) {
                        log.unavailableEnds--;
                        throw new SinkUnavailableException("the sink's store refused (Connection refused)", null);
                    }
                    return log.emptyEnd ? List.of() : drain("end");
                }

                private List<String> drain(String name) {
                    String c = name + ":" + buffer;
                    buffer.clear();
                    return List.of(c);
                }

                @Override
                public void close() {
                    log.closed = true;
                }
            };
        }

        @Override
        public Committer<String> createCommitter(RuntimeContext context) {
            Log log = LOGS.get(id);
            return log.committed::add;
        }

        @Override
        public TypeSerializer<String> committableSerializer() {
            return Serializers.STRING;
        }
    }

    private static OperatorContext context(Duration checkpointInterval) {
        RuntimeContext rc = new FakeRuntimeContext(0, 1).withCheckpointInterval(checkpointInterval);
        return new OperatorContext() {
            @Override
            public RuntimeContext runtimeContext() {
                return rc;
            }

            @Override
            public <T> Output<T> output() {
                throw new UnsupportedOperationException("a sink emits nothing");
            }

            @Override
            public KeyedStateBackend keyedStateBackend() {
                return null;
            }
        };
    }
}
