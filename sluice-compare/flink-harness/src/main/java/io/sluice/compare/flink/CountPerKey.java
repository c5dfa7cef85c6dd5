package io.sluice.compare.flink;

import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.api.common.state.CheckpointListener;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;

/**
 * The counting function of the job on every Flink version: counts records per key in a
 * {@code ValueState<Long>} and emits the new count, as Sluice's job does, and reports processed
 * records to {@link Recorder} in batches of 4,096 and completed checkpoints. When {@code probed}
 * (the recovery scenarios) it also reports restored state and throws the failures the harness
 * injects; the throughput job leaves those per-record checks out, as Sluice's throughput job does.
 *
 * <p>The state handle is taken on the first record rather than in {@code open}, whose signature
 * differs between Flink 1.x ({@code open(Configuration)}) and 2.x ({@code open(OpenContext)}); one
 * predictable branch per record.
 *
 * <p>Thread rules: Flink calls it from its task thread only.
 */
final class CountPerKey extends RichMapFunction<Long, Long> implements CheckpointListener {
    private static final long serialVersionUID = 1L;
    private static final int BATCH = 4096;
    private final boolean probed;
    private transient ValueState<Long> count;
    private transient long epoch;
    private transient boolean seenRestored;
    private transient long n;

    CountPerKey(boolean probed) {
        this.probed = probed;
    }

    @Override
    public Long map(Long value) throws Exception {
        if (count == null) {
            count = getRuntimeContext().getState(new ValueStateDescriptor<>("count", Types.LONG));
            epoch = Recorder.epoch();
        }
        Long c = count.value();
        Long next = c == null ? 1L : c + 1;
        count.update(next);
        if (++n == BATCH) {
            Recorder.processed(n);
            n = 0;
        }
        if (probed) {
            if (!seenRestored && c != null) {
                seenRestored = true;
                Recorder.restored(epoch);
            }
            if (Recorder.shouldFail()) {
                Recorder.failed();
                throw new IllegalStateException("Injected failure (harness), at record " + value);
            }
        }
        return next;
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) {
        Recorder.checkpointCompleted(checkpointId);
    }
}
