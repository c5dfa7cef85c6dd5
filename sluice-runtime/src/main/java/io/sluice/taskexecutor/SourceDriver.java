package io.sluice.taskexecutor;

import io.sluice.api.eventtime.Watermarks;
import io.sluice.api.functions.Collector;
import io.sluice.api.source.SourceReader;
import io.sluice.operators.Output;
import java.util.function.BooleanSupplier;

/**
 * Drives a source task: asks its reader for a batch of at most {@value #SOURCE_BATCH} records at a
 * time and looks at the mailbox (checkpoint triggers) and processing time between batches. When the
 * reader has nothing and says when it will ({@link SourceReader#nanosUntilAvailable}), the task sleeps
 * until then, or until mail or its operators' next processing-time work, so an idle source costs no CPU.
 *
 * <p>At the end of a bounded input the mailbox is drained once more, so a trigger that came before
 * the end is still taken at the final position (its barrier precedes the end of the outputs); a
 * later trigger is dropped. Then event time is over: the maximum watermark makes every pending
 * event-time timer fire.
 *
 * <p>Stop-with-savepoint: after the savepoint's barrier ({@link #stopAfter}) the source emits nothing more
 * (no record, no processing-time work, so nothing reaches a sink after the state the savepoint holds) and
 * only runs its mailbox, until the task is cancelled (the job master cancels the job once the savepoint
 * completed) or the next trigger resumes it ({@link #resume}: the savepoint failed, the job goes on). Like
 * Flink's synchronous savepoint; it also leaves the machine's CPU to the savepoint's upload.
 *
 * <p>Task thread only.
 */
final class SourceDriver implements RecordDriver {
    /** Records a source emits between two looks at the mailbox: small enough for prompt barriers. */
    static final int SOURCE_BATCH = 512;

    private final SourceReader<Object> reader;
    private final OperatorChain chain;
    private final TaskMailbox mailbox;
    private final BooleanSupplier cancelled;
    /** Written by the task thread only; read racily for metrics. */
    private long recordsIn;
    private final io.sluice.operators.RecordTimestamp recordTimestamp;
    /** The stop-with-savepoint after whose barrier this source emits nothing, or -1. Task thread. */
    private long stoppedAfter = -1;
    /** How long a stopped source waits for mail before it looks at the cancel flag again. */
    static final long STOPPED_WAIT_NANOS = 100_000_000L;

    @SuppressWarnings("unchecked")
    SourceDriver(SourceReader<?> reader, OperatorChain chain, TaskMailbox mailbox, BooleanSupplier cancelled) {
        this(reader, chain, mailbox, cancelled, new io.sluice.operators.RecordTimestamp());
    }

    /** @param recordTimestamp the task's record timestamp, which a reader sets through {@code Output.collect(record, t)} */
    @SuppressWarnings("unchecked")
    SourceDriver(SourceReader<?> reader, OperatorChain chain, TaskMailbox mailbox, BooleanSupplier cancelled,
                 io.sluice.operators.RecordTimestamp recordTimestamp) {
        this.recordTimestamp = recordTimestamp;
        this.reader = (SourceReader<Object>) reader;
        this.chain = chain;
        this.mailbox = mailbox;
        this.cancelled = cancelled;
    }

    @Override
    public void run() throws Exception {
        Output<Object> head = chain.head();
        Output<Object> tail = chain.end();
        io.sluice.operators.RecordTimestamp timestamp = recordTimestamp;
        Collector<Object> counting = new Output<>() {
            @Override
            public void collect(Object record) {
                recordsIn++;
                head.collect(record);
            }

            @Override
            public void collect(Object record, long eventTime) {
                timestamp.set(eventTime);
                collect(record);
            }

            @Override
            public <X> void collect(io.sluice.api.functions.OutputTag<X> tag, X value) {
                tail.collect(tag, value); // a source's side outputs leave the vertex, past its chained operators
            }

            @Override
            public void emitWatermark(long watermark) {
                head.emitWatermark(watermark);
            }

            @Override
            public void emitIdleStatus(boolean idle) {
                head.emitIdleStatus(idle);
            }
        };
        while (!cancelled.getAsBoolean()) {
            mailbox.drain();
            if (stoppedAfter >= 0) {
                mailbox.awaitAndDrain(STOPPED_WAIT_NANOS);
                continue;
            }
            chain.advanceProcessingTime();
            int n = reader.emit(counting, SOURCE_BATCH);
            if (n == SourceReader.END_OF_INPUT) {
                // A trigger that came before the end is taken now, at the final position; later ones are dropped.
                mailbox.drain();
                if (!cancelled.getAsBoolean()) {
                    // The end of a bounded input: event time is over; every pending event-time timer fires.
                    head.emitWatermark(Watermarks.MAX);
                }
                return;
            }
            if (n < SOURCE_BATCH) {
                // The reader is caught up: hand partly filled buffers on before it waits.
                chain.outputs().flush();
            }
            if (n == 0) {
                awaitWork();
            }
        }
    }

    /**
     * Sleeps until the reader's next record is due, mail arrives, an operator has processing-time work or
     * the task is cancelled (its interrupt), whichever comes first; not at all for a reader that cannot say
     * when (it may park inside {@code emit} instead).
     */
    private void awaitWork() throws Exception {
        long untilRecord = reader.nanosUntilAvailable();
        if (untilRecord <= 0) {
            return;
        }
        long wait = Math.min(untilRecord, chain.nanosUntilProcessingTimeWork());
        if (wait > 0) {
            mailbox.awaitAndDrain(wait);
        }
    }

    /** Task thread (mail): the stop-with-savepoint {@code savepointId} emitted its barrier; emit nothing more. */
    void stopAfter(long savepointId) {
        stoppedAfter = savepointId;
    }

    /** Task thread (mail): emit again (a later checkpoint was triggered: the stop-with-savepoint failed). */
    void resume() {
        stoppedAfter = -1;
    }

    /** The stop-with-savepoint this source stopped after, or -1 if it emits. Task thread. */
    long stoppedAfter() {
        return stoppedAfter;
    }

    @Override
    public long recordsIn() {
        return recordsIn;
    }
}
