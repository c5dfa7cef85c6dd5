package io.sluice.operators.timers;

import io.sluice.api.state.MapState;
import io.sluice.api.state.MapStateDescriptor;
import io.sluice.core.serialization.Serializers;
import io.sluice.state.KeyedStateBackend;
import java.util.Comparator;
import java.util.List;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;

/**
 * The timers of one time domain of a keyed operator. The source of truth is keyed state (a map
 * state named {@code stateName}: per key, its timer times), so timers are in every keyed snapshot —
 * inline in the checkpoint metadata when small, like any state — and restored with it. An
 * in-memory queue ordered by time, then by key, finds the due ones; it is rebuilt from the state on
 * open. Registering a timer twice for a key and time keeps one.
 *
 * <p>Threading: task thread only, like the backend.
 */
final class TimerQueue {
    /** Time first; then keys in their natural order where they have one, else by their text: a deterministic order per time. */
    private static final Comparator<Timer> ORDER = TimerQueue::compare;

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static int compare(Timer x, Timer y) {
        int c = Long.compare(x.time(), y.time());
        if (c != 0) {
            return c;
        }
        Object a = x.key();
        Object b = y.key();
        if (a instanceof Long la && b instanceof Long lb) {
            return Long.compare(la, lb); // the common key type, without the generic path below
        }
        if (a instanceof Comparable ca && a.getClass() == b.getClass()) {
            return ca.compareTo(b);
        }
        c = a.getClass().getName().compareTo(b.getClass().getName());
        return c != 0 ? c : String.valueOf(a).compareTo(String.valueOf(b));
    }

    private final KeyedStateBackend backend;
    private final String stateName;
    private final MapState<Long, Boolean> state;
    private final TreeSet<Timer> queue = new TreeSet<>(ORDER);

    TimerQueue(KeyedStateBackend backend, String stateName) {
        this.backend = backend;
        this.stateName = stateName;
        this.state = backend.getMapState(new MapStateDescriptor<>(stateName, Serializers.LONG, Serializers.BOOLEAN));
    }

    /** Rebuilds the queue from the (restored) state. Leaves the backend's current key changed. */
    void rebuild() {
        queue.clear();
        List<Object> keys = backend.keysOf(stateName);
        for (Object key : keys) {
            backend.setCurrentKey(key);
            for (Long time : state.keys()) {
                queue.add(new Timer(time, key));
            }
        }
    }

    /** For the backend's current key. */
    void register(long time) {
        Long boxed = time; // boxed once for both state calls
        if (!state.contains(boxed)) {
            state.put(boxed, Boolean.TRUE);
            queue.add(new Timer(time, backend.currentKey()));
        }
    }

    /** For the backend's current key; nothing if there is no such timer. */
    void delete(long time) {
        Long boxed = time;
        if (state.contains(boxed)) {
            state.remove(boxed);
            queue.remove(new Timer(time, backend.currentKey()));
        }
    }

    /**
     * Removes and returns the earliest timer due at {@code time} (at or before it), with the
     * backend's current key set to the timer's key; {@code null} if none is due.
     */
    @Nullable Timer pollDue(long time) {
        if (queue.isEmpty() || queue.first().time() > time) {
            return null;
        }
        Timer timer = queue.pollFirst();
        backend.setCurrentKey(timer.key());
        state.remove(timer.time());
        return timer;
    }

    /** The earliest timer's time, or {@link Long#MAX_VALUE} if the queue is empty. */
    long earliestTime() {
        return queue.isEmpty() ? Long.MAX_VALUE : queue.first().time();
    }

    int size() {
        return queue.size();
    }
}
