package io.sluice.examples;

import java.io.Serializable;
import java.util.Collection;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Makes a task throw when it meets given records, each only once, for demos and failure tests.
 *
 * <p>Functions travel in the job graph as serialized copies, and every restart deserializes new
 * ones, so the "only once" memory lives in a static registry keyed by this plan's id (one JVM).
 */
public final class InjectedFailures implements Serializable {
    private static final Map<String, Set<Long>> REMAINING = new ConcurrentHashMap<>();
    private static final Map<String, AtomicInteger> THROWN = new ConcurrentHashMap<>();
    private static final Map<String, AtomicBoolean> ARMED = new ConcurrentHashMap<>();

    private final String id;

    private InjectedFailures(String id) {
        this.id = id;
    }

    /** A plan that throws once at each of {@code values}. */
    public static InjectedFailures at(Collection<Long> values) {
        String id = UUID.randomUUID().toString();
        Set<Long> set = ConcurrentHashMap.newKeySet();
        set.addAll(values);
        REMAINING.put(id, set);
        THROWN.put(id, new AtomicInteger());
        return new InjectedFailures(id);
    }

    /**
     * A plan that throws once, at the first record met after {@link #arm()}: for tests that must
     * reach a state (checkpoints completed, say) before the failure, whatever the machine's load.
     */
    public static InjectedFailures onceArmed() {
        InjectedFailures plan = at(Set.of());
        ARMED.put(plan.id, new AtomicBoolean());
        return plan;
    }

    /** Lets an {@link #onceArmed()} plan throw at the next record. */
    public void arm() {
        AtomicBoolean armed = ARMED.get(id);
        if (armed == null) {
            throw new IllegalStateException("only a plan made by onceArmed() can be armed");
        }
        armed.set(true);
    }

    public static InjectedFailures none() {
        return at(Set.of());
    }

    /** Throws {@link InjectedFailureException} if {@code value} is in the plan and has not failed yet. */
    public void maybeFail(long value) {
        AtomicBoolean armed = ARMED.get(id);
        if (armed != null && armed.compareAndSet(true, false)) {
            THROWN.get(id).incrementAndGet();
            throw new InjectedFailureException("Injected failure at record " + value + " (armed)");
        }
        Set<Long> remaining = REMAINING.get(id);
        if (remaining != null && !remaining.isEmpty() && remaining.remove(value)) {
            THROWN.get(id).incrementAndGet();
            throw new InjectedFailureException("Injected failure at record " + value);
        }
    }

    /** How many failures were thrown so far. */
    public int thrown() {
        AtomicInteger n = THROWN.get(id);
        return n == null ? 0 : n.get();
    }

    public int remaining() {
        Set<Long> r = REMAINING.get(id);
        return r == null ? 0 : r.size();
    }

    public void release() {
        REMAINING.remove(id);
        THROWN.remove(id);
        ARMED.remove(id);
    }

    /** The failure a plan throws. */
    public static final class InjectedFailureException extends RuntimeException {
        public InjectedFailureException(String message) {
            super(message);
        }
    }
}
