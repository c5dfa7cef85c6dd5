package io.sluice.rest.dashboard;

import io.sluice.api.functions.MapFunction;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A pass-through map function that throws once each time the test asks it to ({@link #failNextRecord()}),
 * so a test decides exactly when a task fails. Functions travel as serialized copies, so the switch
 * lives in a static registry keyed by this instance's id (one JVM). Test code only.
 */
final class FailOnDemand implements MapFunction<Long, Long> {
    private static final long serialVersionUID = 1L;
    private static final Map<String, AtomicBoolean> ARMED = new ConcurrentHashMap<>();

    private final String id;

    FailOnDemand() {
        this.id = UUID.randomUUID().toString();
        ARMED.put(id, new AtomicBoolean());
    }

    /** The next record that reaches any copy of this function makes it throw (once). */
    void failNextRecord() {
        ARMED.get(id).set(true);
    }

    void release() {
        ARMED.remove(id);
    }

    @Override
    public Long map(Long value) {
        AtomicBoolean armed = ARMED.get(id);
        if (armed != null && armed.compareAndSet(true, false)) {
            throw new IllegalStateException("Failure requested by the test at record " + value);
        }
        return value;
    }
}
