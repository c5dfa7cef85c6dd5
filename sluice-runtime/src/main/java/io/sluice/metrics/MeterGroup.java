package io.sluice.metrics;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * The meters that one owner (a job, a task attempt) registered, so that they can all be removed
 * from the registry when the owner ends: an ended job leaves no meters behind. Thread-safe.
 */
public final class MeterGroup implements AutoCloseable {
    private final MeterRegistry registry;
    private final Tags tags;
    private final List<Meter> meters = new ArrayList<>();
    private boolean closed;

    /** @param tags the tags every meter of this group carries */
    public MeterGroup(MeterRegistry registry, Tags tags) {
        this.registry = registry;
        this.tags = tags;
    }

    public MeterRegistry registry() {
        return registry;
    }

    /** The tags every meter of this group carries. */
    public Tags tags() {
        return tags;
    }

    /**
     * Registers (or finds) a meter through {@code register}, for example
     * {@code r -> Counter.builder(name).tags(group.tags()).register(r)}, and remembers it for
     * {@link #close()}. After close the meter is removed again at once.
     */
    public synchronized <M extends Meter> M add(Function<MeterRegistry, M> register) {
        M meter = register.apply(registry);
        if (closed) {
            registry.remove(meter);
        } else if (!meters.contains(meter)) {
            meters.add(meter);
        }
        return meter;
    }

    /**
     * Removes from the registry any meter named {@code name} that carries all of this group's
     * tags, so that a function meter left by an earlier owner with the same tags (a previous task
     * attempt) is replaced by the next {@link #add} instead of being found and reused.
     */
    public void removeExisting(String name) {
        for (Meter m : registry.find(name).tags(tags).meters()) {
            registry.remove(m);
        }
    }

    /** Removes every meter of this group from the registry; later additions are removed at once. Idempotent. */
    @Override
    public synchronized void close() {
        closed = true;
        for (Meter m : meters) {
            registry.remove(m);
        }
        meters.clear();
    }
}
