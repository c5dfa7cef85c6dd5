package io.sluice.taskexecutor;

import io.sluice.api.functions.KeySelector;
import io.sluice.network.BarrierHandler;
import io.sluice.network.InputStatus;
import io.sluice.network.RecordHandler;
import io.sluice.network.StreamInputProcessor;
import io.sluice.network.WatermarkHandler;
import io.sluice.operators.Output;
import io.sluice.operators.RecordTimestamp;
import io.sluice.state.KeyedStateBackend;
import java.util.List;
import java.util.function.BooleanSupplier;

/**
 * Drives a task that reads other tasks: one buffer at a time from its input gate
 * ({@link StreamInputProcessor}: records, aligned barriers, watermarks and idleness), the mailbox
 * before each buffer, processing time after each. While no data comes it hands partly filled buffers
 * on and sleeps until data, mail (the mailbox wakes the gate) or its operators' next processing-time
 * work ({@link OperatorChain#nanosUntilProcessingTimeWork}: timers, periodic watermarks, idleness),
 * so an idle task costs no CPU. A keyed task sets the current key of its keyed state before each
 * record reaches the head operator. Task thread only.
 */
final class InputGateDriver implements RecordDriver {

    /**
     * How records are keyed on their way in.
     *
     * @param keySelector        the key of each record, or {@code null} for a task without keyed input
     * @param backend            where the current key is set, or {@code null} without keyed input
     * @param serializerDeclared whether the job declared a key serializer (then any key type is trusted)
     */
    record Keying(KeySelector<Object, ?> keySelector, KeyedStateBackend backend, boolean serializerDeclared) {
    }

    private final String taskName;
    private final TaskInputs inputs;
    private final OperatorChain chain;
    private final Keying keying;
    private final BarrierHandler barriers;
    private final RecordTimestamp recordTimestamp;
    private final TaskMailbox mailbox;
    private final BooleanSupplier cancelled;
    /** Written by the task thread only; read racily for metrics. */
    private long recordsIn;

    InputGateDriver(String taskName, TaskInputs inputs, OperatorChain chain, Keying keying, BarrierHandler barriers,
                    RecordTimestamp recordTimestamp, TaskMailbox mailbox, BooleanSupplier cancelled) {
        this.taskName = taskName;
        this.inputs = inputs;
        this.chain = chain;
        this.keying = keying;
        this.barriers = barriers;
        this.recordTimestamp = recordTimestamp;
        this.mailbox = mailbox;
        this.cancelled = cancelled;
    }

    @Override
    @SuppressWarnings({"unchecked", "rawtypes"})
    public void run() throws Exception {
        if (inputs.gate() == null) {
            throw new IllegalStateException("Task " + taskName + " has neither a source nor inputs");
        }
        StreamInputProcessor<Object> processor = new StreamInputProcessor<>(inputs.gate(), (List) inputs.serializers(),
                () -> {
                    mailbox.drain();
                    chain.advanceProcessingTime();
                    chain.outputs().flush();
                }, inputs.timestamped(), recordTimestamp, chain::nanosUntilProcessingTimeWork);
        mailbox.onMail(inputs.gate()::wakeUp); // mail queued before this is drained before the first wait
        RecordHandler<Object> records = recordHandler();
        WatermarkHandler watermarks = watermarkHandler(chain.head());
        while (!cancelled.getAsBoolean()) {
            mailbox.drain();
            InputStatus status = processor.processNext(records, barriers, watermarks);
            if (status == InputStatus.END_OF_INPUT) {
                return;
            }
            chain.advanceProcessingTime(); // a clock read per buffer: cheap, and timers fire while input is busy too
        }
    }

    private RecordHandler<Object> recordHandler() {
        Output<Object> head = chain.head();
        if (keying.keySelector() == null) {
            return record -> {
                recordsIn++;
                head.collect(record);
            };
        }
        KeySelector<Object, ?> keys = keying.keySelector();
        KeyedStateBackend backend = keying.backend();
        KeyTypeCheck keyCheck = new KeyTypeCheck(taskName, keying.serializerDeclared());
        return record -> {
            recordsIn++;
            Object key = keys.getKey(record);
            keyCheck.check(key);
            backend.setCurrentKey(key);
            head.collect(record);
        };
    }

    private static WatermarkHandler watermarkHandler(Output<Object> head) {
        return new WatermarkHandler() {
            @Override
            public void onWatermark(long watermark) {
                head.emitWatermark(watermark);
            }

            @Override
            public void onIdleStatus(boolean idle) {
                head.emitIdleStatus(idle);
            }
        };
    }

    @Override
    public long recordsIn() {
        return recordsIn;
    }
}
