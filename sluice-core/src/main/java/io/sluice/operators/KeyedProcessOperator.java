package io.sluice.operators;

import io.sluice.api.eventtime.Watermarks;
import io.sluice.api.functions.KeyedProcessFunction;
import io.sluice.api.functions.TimeDomain;
import io.sluice.api.functions.TimerService;
import io.sluice.operators.timers.KeyedTimers;
import io.sluice.state.KeyedStateBackend;
import io.sluice.util.Clock;

/**
 * Runs a {@link KeyedProcessFunction}: hands it each record with a context (timestamp, key,
 * timers), fires event-time timers when the watermark passes them — in time order, then by key —
 * before forwarding the watermark, and processing-time timers when the task's clock reaches them
 * (so those that came due while the job was down fire right after the restore). Records emitted
 * from an event-time timer carry the timer's time as their timestamp; from a processing-time timer,
 * none. Task-thread only.
 */
public final class KeyedProcessOperator<K, I, O> extends UdfOperator<I, O, KeyedProcessFunction<K, I, O>> {
    /**
     * The value the JVM computed before nextProcessingTimeMillis was added, pinned so that job graphs stored by
     * earlier builds (in HA storage, in savepoints' jobs) still deserialize (MovedClassesCompatibilityTest).
     */
    private static final long serialVersionUID = 1785853918017355762L;
    private transient KeyedStateBackend backend;
    private transient KeyedTimers timers;
    private transient RecordTimestamp timestamp;
    private transient Clock clock;
    private transient long watermark;
    private transient ContextImpl context;

    public KeyedProcessOperator(KeyedProcessFunction<K, I, O> function, String name) {
        super(function, name);
    }

    @Override
    public void open(OperatorContext ctx) throws Exception {
        backend = ctx.keyedStateBackend();
        if (backend == null) {
            throw new IllegalStateException("process(KeyedProcessFunction) runs on a KeyedStream only");
        }
        timers = new KeyedTimers(backend, "timers");
        timestamp = ctx.recordTimestamp();
        clock = ctx.clock();
        watermark = Watermarks.MIN;
        context = new ContextImpl();
        super.open(ctx);
    }

    @Override
    public void processElement(I value) throws Exception {
        context.domain = null;
        function.processElement(value, context, output);
    }

    @Override
    public void processWatermark(long newWatermark) throws Exception {
        if (newWatermark <= watermark) {
            return; // not an advance
        }
        {
            watermark = newWatermark;
            long before = timestamp.get();
            KeyedTimers.Fired fired;
            while ((fired = timers.nextEventTime(newWatermark)) != null) {
                timestamp.set(fired.time());
                context.domain = TimeDomain.EVENT_TIME;
                function.onTimer(fired.time(), context, output);
            }
            timestamp.set(before);
        }
        output.emitWatermark(newWatermark);
    }

    @Override
    public void advanceProcessingTime(long nowMillis) throws Exception {
        KeyedTimers.Fired fired = timers.nextProcessingTime(nowMillis);
        if (fired == null) {
            return;
        }
        long before = timestamp.get();
        do {
            timestamp.set(RecordTimestamp.NONE);
            context.domain = TimeDomain.PROCESSING_TIME;
            function.onTimer(fired.time(), context, output);
        } while ((fired = timers.nextProcessingTime(nowMillis)) != null);
        timestamp.set(before);
    }

    @Override
    public long nextProcessingTimeMillis(long nowMillis) {
        return timers.nextProcessingTimeDue();
    }

    /** Pending timers, for tests and metrics. */
    public int pendingTimers() {
        return timers.pendingEventTimeTimers() + timers.pendingProcessingTimeTimers();
    }

    private final class ContextImpl implements KeyedProcessFunction.OnTimerContext<K>, TimerService {
        TimeDomain domain;

        @Override
        public Long timestamp() {
            return timestamp.isSet() ? timestamp.get() : null;
        }

        @Override
        @SuppressWarnings("unchecked")
        public K getCurrentKey() {
            return (K) backend.currentKey();
        }

        @Override
        public TimerService timerService() {
            return this;
        }

        @Override
        public <X> void output(io.sluice.api.functions.OutputTag<X> tag, X value) {
            output.collect(java.util.Objects.requireNonNull(tag, "tag"), value);
        }

        @Override
        public TimeDomain timeDomain() {
            if (domain == null) {
                throw new IllegalStateException("timeDomain() is only known in onTimer");
            }
            return domain;
        }

        @Override
        public long currentProcessingTime() {
            return clock.currentTimeMillis();
        }

        @Override
        public long currentWatermark() {
            return watermark;
        }

        @Override
        public void registerEventTimeTimer(long time) {
            timers.registerEventTime(time);
        }

        @Override
        public void registerProcessingTimeTimer(long time) {
            timers.registerProcessingTime(time);
        }

        @Override
        public void deleteEventTimeTimer(long time) {
            timers.deleteEventTime(time);
        }

        @Override
        public void deleteProcessingTimeTimer(long time) {
            timers.deleteProcessingTime(time);
        }
    }
}
