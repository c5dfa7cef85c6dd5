package io.sluice.operators.windowing;

import io.sluice.api.functions.OutputTag;
import io.sluice.api.eventtime.Watermarks;
import io.sluice.api.functions.RichFunction;
import io.sluice.api.state.MapState;
import io.sluice.api.state.MapStateDescriptor;
import io.sluice.api.windowing.TimeWindow;
import io.sluice.api.windowing.WindowAssigner;
import io.sluice.core.serialization.Serializers;
import io.sluice.operators.OperatorContext;
import io.sluice.operators.RecordTimestamp;
import io.sluice.operators.UdfOperator;
import io.sluice.operators.timers.KeyedTimers;
import io.sluice.state.KeyedStateBackend;
import io.sluice.util.Clock;
import java.util.ArrayList;
import java.util.List;

/**
 * Windows on a keyed stream, built on keyed state and timers: per key, a map state from window to
 * its contents ({@link WindowContents}), and a timer at each window's end (its max timestamp) —
 * event time or processing time — plus, with allowed lateness, a clean-up timer at end + lateness.
 * A window fires when its timer does, with its max timestamp as the result's timestamp; until the
 * clean-up, a late record (within the lateness) updates it and fires it again. A record whose every
 * window is past its clean-up goes to the late-data side output, or is dropped and counted
 * ({@link #lateRecordsDropped()}). Session windows merge on arrival: a record whose window intersects
 * one session of the key is added to it (the session grows, its timers move); one that bridges
 * several sessions makes them one, their contents merged. Timers are per key and time, so a timer is
 * deleted only when no window of the key uses its time any more.
 * Everything is state, so windows and their timers are in checkpoints and restored with them. At
 * the end of a bounded input the final watermark fires the event-time windows and {@link #finish}
 * the processing-time windows still open. Task-thread only.
 */
public final class WindowOperator<K, IN, ACC, OUT> extends UdfOperator<IN, OUT, WindowContents<K, IN, ACC, OUT>> {
    /**
     * The value the JVM computed before nextProcessingTimeMillis was added, pinned so that job graphs stored by
     * earlier builds (in HA storage, in savepoints' jobs) still deserialize (MovedClassesCompatibilityTest).
     */
    private static final long serialVersionUID = 467048555238146373L;
    private final WindowAssigner assigner;
    private final long allowedLateness;
    private final OutputTag<IN> lateTag;

    private transient KeyedStateBackend backend;
    private transient KeyedTimers timers;
    private transient MapState<TimeWindow, ACC> contents;
    private transient RecordTimestamp timestamp;
    private transient Clock clock;
    private transient long watermark;
    private transient long lateDropped;
    private transient FireContextImpl fireContext;
    /** Scratch list of {@link #onTimer}, reused: the current key's windows. */
    private transient List<TimeWindow> timerWindows;

    private static final java.util.Comparator<TimeWindow> BY_START = java.util.Comparator.comparingLong(TimeWindow::start);

    public WindowOperator(WindowAssigner assigner, long allowedLatenessMillis, OutputTag<IN> lateTag,
                          WindowContents<K, IN, ACC, OUT> contents, String name) {
        super(contents, name);
        this.assigner = assigner;
        this.allowedLateness = allowedLatenessMillis;
        this.lateTag = lateTag;
    }

    @Override
    public void open(OperatorContext ctx) throws Exception {
        super.open(ctx);
        backend = ctx.keyedStateBackend();
        if (backend == null) {
            throw new IllegalStateException("window(...) runs on a KeyedStream only");
        }
        timers = new KeyedTimers(backend, "window-timers");
        contents = backend.getMapState(new MapStateDescriptor<>("window-contents", Serializers.TIME_WINDOW,
                Serializers.dynamic()));
        timestamp = ctx.recordTimestamp();
        clock = ctx.clock();
        watermark = Watermarks.MIN;
        fireContext = new FireContextImpl();
        timerWindows = new ArrayList<>();
        if (function.function() instanceof RichFunction rich) {
            rich.open(ctx.runtimeContext());
        }
    }

    @Override
    public void close() throws Exception {
        if (function.function() instanceof RichFunction rich) {
            rich.close();
        }
    }

    /** Records dropped because they were later than the allowed lateness (and no late-data side output was set). */
    public long lateRecordsDropped() {
        return lateDropped;
    }

    @Override
    public void processElement(IN value) throws Exception {
        long time;
        if (assigner.isEventTime()) {
            if (!timestamp.isSet()) {
                throw new IllegalStateException("Operator '" + name() + "' uses event-time windows, but a record"
                        + " arrived without a timestamp: apply a WatermarkStrategy upstream");
            }
            time = timestamp.get();
        } else {
            time = clock.currentTimeMillis();
        }
        List<TimeWindow> windows = assigner.assignWindows(time);
        boolean onTime = false;
        if (assigner.isMerging()) {
            TimeWindow w = windows.get(0);
            if (!isLate(w)) {
                onTime = true;
                addToSession(w, value);
            }
        } else {
            for (TimeWindow w : windows) {
                if (isLate(w)) {
                    continue;
                }
                onTime = true;
                ACC before = contents.get(w);
                contents.put(w, function.add(value, before));
                if (before == null) {
                    registerTimers(w); // a window with contents has its timers already (they go with the contents)
                }
                if (assigner.isEventTime() && w.maxTimestamp() <= watermark) {
                    fire(w); // late, but within the allowed lateness: update and emit again
                }
            }
        }
        if (!onTime) {
            if (lateTag != null) {
                output.collect(lateTag, value);
            } else {
                lateDropped++;
            }
        }
    }

    /**
     * Adds a record's session window {@code window} to the key's sessions. The key's sessions never
     * intersect one another (they would have merged), so usually the new window intersects none (a
     * new session) or exactly one (the record joins it, and the session may grow): then the record is
     * added to that session's contents and, if the session's end moved, its timers move with it —
     * no scan of a copy, no merge of accumulators. A window that bridges two or more sessions merges
     * them all ({@link #mergeSessions}).
     */
    private void addToSession(TimeWindow window, IN value) throws Exception {
        TimeWindow hit = null;
        int hits = 0;
        int sessions = 0;
        for (TimeWindow w : contents.keys()) {
            sessions++;
            if (w.intersects(window)) {
                hit = w;
                hits++;
            }
        }
        TimeWindow merged;
        if (hits == 0) {
            merged = window;
            contents.put(window, function.add(value, null));
            registerTimers(window);
        } else if (hits == 1) {
            ACC acc = function.add(value, contents.get(hit));
            if (hit.start() <= window.start() && window.end() <= hit.end()) {
                merged = hit;
                contents.put(hit, acc);
            } else {
                merged = hit.cover(window);
                contents.put(merged, acc); // before the remove, so the key's map never becomes empty in between
                contents.remove(hit);
                replaceTimers(hit, merged, sessions == 1);
            }
        } else {
            merged = mergeSessions(window, value);
        }
        if (assigner.isEventTime() && merged.maxTimestamp() <= watermark) {
            fire(merged);
        }
    }

    /** The new record's window bridges several sessions: they all become one, their contents merged. */
    private TimeWindow mergeSessions(TimeWindow window, IN value) throws Exception {
        TimeWindow merged = window;
        ACC acc = function.add(value, null);
        List<TimeWindow> existing = new ArrayList<>();
        for (TimeWindow w : contents.keys()) {
            existing.add(w);
        }
        List<TimeWindow> mergedAway = new ArrayList<>();
        boolean changed = true;
        while (changed) {
            changed = false;
            for (int i = 0; i < existing.size(); i++) {
                TimeWindow w = existing.get(i);
                if (w.intersects(merged)) {
                    merged = merged.cover(w);
                    acc = function.merge(contents.get(w), acc);
                    mergedAway.add(w);
                    existing.remove(i--);
                    changed = true;
                }
            }
        }
        contents.put(merged, acc);
        for (TimeWindow w : mergedAway) {
            if (!w.equals(merged)) {
                contents.remove(w);
            }
        }
        registerTimers(merged);
        for (TimeWindow w : mergedAway) {
            releaseTimers(w, null);
        }
        return merged;
    }

    private boolean isLate(TimeWindow w) {
        return assigner.isEventTime() && cleanupTime(w) <= watermark;
    }

    private long cleanupTime(TimeWindow w) {
        long t = w.maxTimestamp() + allowedLateness;
        return t < w.maxTimestamp() ? Long.MAX_VALUE : t;
    }

    private void registerTimers(TimeWindow w) {
        if (assigner.isEventTime()) {
            if (w.maxTimestamp() > watermark) {
                timers.registerEventTime(w.maxTimestamp()); // else it fired already; a late record fires it directly
            }
            if (allowedLateness > 0) {
                timers.registerEventTime(cleanupTime(w));
            }
        } else {
            timers.registerProcessingTime(w.maxTimestamp());
        }
    }

    /**
     * The timers of {@code from}, a session that became part of {@code to} (already in the contents in
     * its place): {@code to}'s are registered, then those of {@code from}'s that no window of the key
     * still needs are deleted. A timer whose time does not change stays as it is; when the session's
     * end moves, its timer moves with it (registered at the new time first, so the key's timer state
     * never empties in between).
     */
    private void replaceTimers(TimeWindow from, TimeWindow to, boolean toIsTheOnlyWindow) {
        registerTimers(to);
        releaseTimers(from, toIsTheOnlyWindow ? to : null);
    }

    /**
     * Deletes the timers of {@code gone}, which is no longer in the contents, except those at a time
     * another window of the key still uses: timers are per key and time, so two windows whose end or
     * clean-up times coincide share one.
     *
     * @param onlyWindow the key's one window, if the caller knows it has exactly one (saves a scan); else {@code null}
     */
    private void releaseTimers(TimeWindow gone, TimeWindow onlyWindow) {
        long end = gone.maxTimestamp();
        if (!timerTimeInUse(end, onlyWindow)) {
            if (assigner.isEventTime()) {
                timers.deleteEventTime(end);
            } else {
                timers.deleteProcessingTime(end);
            }
        }
        if (assigner.isEventTime() && allowedLateness > 0) {
            long cleanup = cleanupTime(gone);
            if (cleanup != end && !timerTimeInUse(cleanup, onlyWindow)) {
                timers.deleteEventTime(cleanup);
            }
        }
    }

    /** Whether a window of the current key ({@code onlyWindow}, if not null, is its only one) has its end or clean-up timer at {@code time}. */
    private boolean timerTimeInUse(long time, TimeWindow onlyWindow) {
        if (onlyWindow != null) {
            return usesTimerAt(onlyWindow, time);
        }
        for (TimeWindow w : contents.keys()) {
            if (usesTimerAt(w, time)) {
                return true;
            }
        }
        return false;
    }

    private boolean usesTimerAt(TimeWindow w, long time) {
        return w.maxTimestamp() == time || (assigner.isEventTime() && allowedLateness > 0 && cleanupTime(w) == time);
    }

    @Override
    public void processWatermark(long newWatermark) throws Exception {
        if (newWatermark <= watermark) {
            return;
        }
        watermark = newWatermark;
        KeyedTimers.Fired fired;
        while ((fired = timers.nextEventTime(newWatermark)) != null) {
            onTimer(fired.time(), true);
        }
        output.emitWatermark(newWatermark);
    }

    @Override
    public void advanceProcessingTime(long nowMillis) throws Exception {
        KeyedTimers.Fired fired;
        while ((fired = timers.nextProcessingTime(nowMillis)) != null) {
            onTimer(fired.time(), false);
        }
    }

    @Override
    public long nextProcessingTimeMillis(long nowMillis) {
        return timers.nextProcessingTimeDue();
    }

    /**
     * End of input: processing-time windows still open fire now, each key's in the order of their
     * ends, so every record the job read is in a result. (No record can reach them any more, so their
     * results are final although their time has not come.) Event-time windows need nothing here: the
     * final watermark fired them.
     */
    @Override
    public void finish() throws Exception {
        if (assigner.isEventTime()) {
            return;
        }
        KeyedTimers.Fired fired;
        while ((fired = timers.nextProcessingTime(Long.MAX_VALUE)) != null) {
            onTimer(fired.time(), false);
        }
    }

    /** A timer of the current key at {@code time}: fire the windows ending then, purge those whose clean-up is due. */
    private void onTimer(long time, boolean eventTime) throws Exception {
        List<TimeWindow> windows = timerWindows;
        windows.clear();
        for (TimeWindow w : contents.keys()) {
            windows.add(w);
        }
        if (windows.size() > 1) {
            windows.sort(BY_START);
        }
        for (int i = 0; i < windows.size(); i++) {
            TimeWindow w = windows.get(i);
            if (w.maxTimestamp() == time) {
                fire(w);
            }
            if (!eventTime || cleanupTime(w) == time) {
                if (!eventTime && w.maxTimestamp() != time) {
                    continue;
                }
                contents.remove(w);
            }
        }
        windows.clear();
    }

    @SuppressWarnings("unchecked")
    private void fire(TimeWindow w) throws Exception {
        ACC acc = contents.get(w);
        if (acc == null) {
            return;
        }
        long before = timestamp.get();
        timestamp.set(w.maxTimestamp());
        fireContext.window = w;
        function.emit((K) backend.currentKey(), w, acc, fireContext, output);
        timestamp.set(before);
    }

    private final class FireContextImpl implements WindowContents.FireContext {
        TimeWindow window;

        @Override
        public TimeWindow window() {
            return window;
        }

        @Override
        public long currentWatermark() {
            return watermark;
        }

        @Override
        public long currentProcessingTime() {
            return clock.currentTimeMillis();
        }

        @Override
        public <X> void output(OutputTag<X> tag, X value) {
            output.collect(tag, value);
        }
    }
}
