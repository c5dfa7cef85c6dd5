package io.sluice.chaos;

import io.sluice.api.tuple.Tuple2;
import io.sluice.api.functions.MapFunction;
import io.sluice.api.functions.RichFunction;
import io.sluice.api.functions.RuntimeContext;
import io.sluice.api.state.ValueState;
import io.sluice.api.state.ValueStateDescriptor;
import io.sluice.core.serialization.Serializers;
import java.nio.ByteBuffer;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The counting step of a chaos job: a keyed counter, either kept in the first 8 bytes of a
 * {@code byte[]} (of {@code stateBytes}, the rest padding that makes the state large enough for
 * state files) that is mutated in place (a mutable state value: a snapshot that shares it with the task thread is
 * torn and shows up as a wrong count) or stored as a new {@code Long} each time, which logs its deployment for
 * every record ({@link DeploymentLog}) and throws when the run arms a task failure for its job.
 */
final class ChaosCounter implements MapFunction<Long, Tuple2<Long, Long>>, RichFunction {
    private static final long serialVersionUID = 1L;
    private static final Map<String, AtomicInteger> ARMED_FAILURES = new ConcurrentHashMap<>();

    private final String tag;
    private final int keys;
    private final boolean mutable;
    private final int stateBytes;
    private transient ValueState<byte[]> mutableCount;
    private transient ValueState<Long> count;
    private transient int deployment;

    ChaosCounter(String tag, int keys, boolean mutable, int stateBytes) {
        this.tag = tag;
        this.keys = keys;
        this.mutable = mutable;
        this.stateBytes = stateBytes;
    }

    /** The next record of {@code tag}'s job (any subtask) throws. */
    static void armFailure(String tag) {
        ARMED_FAILURES.computeIfAbsent(tag, t -> new AtomicInteger()).incrementAndGet();
    }

    static void release(String tag) {
        ARMED_FAILURES.remove(tag);
    }

    @Override
    public void open(RuntimeContext context) {
        if (mutable) {
            mutableCount = context.getState(new ValueStateDescriptor<>("count", Serializers.BYTES));
        } else {
            count = context.getState(new ValueStateDescriptor<>("count", Serializers.LONG));
        }
        deployment = DeploymentLog.currentDeployment();
    }

    @Override
    public Tuple2<Long, Long> map(Long value) {
        DeploymentLog.seen(tag, deployment);
        long next;
        if (mutable) {
            byte[] c = mutableCount.value();
            if (c == null) {
                c = new byte[stateBytes];
            }
            ByteBuffer counter = ByteBuffer.wrap(c);
            next = counter.getLong(0) + 1;
            counter.putLong(0, next); // mutate the value got from state, then store it: the idiom a torn snapshot breaks
            mutableCount.update(c);
        } else {
            Long c = count.value();
            next = c == null ? 1 : c + 1;
            count.update(next);
        }
        AtomicInteger armed = ARMED_FAILURES.get(tag);
        if (armed != null && armed.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
            throw new IllegalStateException("Chaos: injected task failure at record " + value + " of " + tag);
        }
        return new Tuple2<>(value % keys, next);
    }
}
