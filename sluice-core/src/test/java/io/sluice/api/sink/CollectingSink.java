package io.sluice.api.sink;

import io.sluice.api.functions.SinkFunction;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * Collects records into memory so that a test or demo can read them after (or while) the job runs.
 *
 * <p>Why a static registry: the sink object is Java-serialized into the job graph, and each subtask
 * runs a deserialized copy, so records appended to a field of the copy would never be seen by the
 * instance the test holds. Instead, {@link #create()} allocates an id and a list in a static
 * registry; every copy carries only the id and appends to the shared list. This works only when the
 * job runs in the same JVM as the caller (a local or mini cluster). Call {@link #release()} when
 * done, or the list stays in memory until the JVM exits.
 *
 * <p>Threading: thread-safe. All subtasks append to the same list concurrently; the order across
 * subtasks is arbitrary, while the records of one subtask keep their order.
 */
public final class CollectingSink<T> implements SinkFunction<T> {
    private static final long serialVersionUID = 1L;
    private static final Map<String, List<Object>> REGISTRY = new ConcurrentHashMap<>();

    private final String id;
    private transient List<Object> results;

    private CollectingSink(String id) {
        this.id = id;
    }

    /** A new sink with its own, empty result list. */
    public static <T> CollectingSink<T> create() {
        String id = UUID.randomUUID().toString();
        REGISTRY.put(id, Collections.synchronizedList(new ArrayList<>()));
        return new CollectingSink<>(id);
    }

    public String id() {
        return id;
    }

    @Override
    public void invoke(T value) {
        List<Object> list = results;
        if (list == null) {
            list = list();
            results = list;
        }
        list.add(value);
    }

    /** A copy of the records collected so far. */
    @SuppressWarnings("unchecked")
    public List<T> results() {
        List<Object> list = list();
        synchronized (list) {
            return new ArrayList<>((List<T>) (List<?>) list);
        }
    }

    public int count() {
        return list().size();
    }

    /** Forgets the records collected so far; the sink stays usable. */
    public void clear() {
        list().clear();
    }

    /** Removes this sink's list from the registry; afterwards the sink (and its copies) can no longer be used. */
    public void release() {
        REGISTRY.remove(id);
        results = null;
    }

    private List<Object> list() {
        List<Object> list = REGISTRY.get(id);
        if (list == null) {
            throw new IllegalStateException("CollectingSink " + id + " is not registered in this JVM: either it was"
                    + " released, or this copy runs in another JVM (CollectingSink works only when the job runs in"
                    + " the JVM that created it). Create a new sink with CollectingSink.create()");
        }
        return list;
    }

    /**
     * The last value seen for each key, in order of each key's first appearance. Useful for
     * checking the final result of a rolling aggregation, whose sink sees every intermediate update.
     */
    public static <T, K, V> Map<K, V> lastValuePerKey(
            List<T> results, Function<? super T, ? extends K> key, Function<? super T, ? extends V> value) {
        Objects.requireNonNull(results, "lastValuePerKey: results must not be null");
        Map<K, V> last = new LinkedHashMap<>();
        for (T record : results) {
            last.put(key.apply(record), value.apply(record));
        }
        return last;
    }
}
