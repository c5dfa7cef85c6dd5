package io.sluice.core.serialization;

import java.util.function.Supplier;

/**
 * One value per class loader, for what would otherwise be a JVM-wide cache of user classes: kept
 * in the loader itself when it is a {@link ClassLoaderValues} (a job's loader), so it goes when the
 * loader goes; one shared value for the loader of Sluice's own classes, which lives as long as the
 * JVM; none for any other loader ({@link #get} returns {@code null}: do not cache).
 *
 * <p>Threading: thread-safe; {@code initial} may be called more than once for one loader by racing
 * threads (one result wins).
 */
public final class PerClassLoader<T> {
    private static final ClassLoader OWN = PerClassLoader.class.getClassLoader();

    private final Supplier<T> initial;
    private final T shared;

    public PerClassLoader(Supplier<T> initial) {
        this.initial = initial;
        this.shared = initial.get();
    }

    /** The value of {@code loader}, or {@code null} for a loader that can carry none. */
    @SuppressWarnings("unchecked")
    public T get(ClassLoader loader) {
        if (loader instanceof ClassLoaderValues values) {
            return (T) values.sluiceValues().computeIfAbsent(this, k -> initial.get());
        }
        return loader == OWN ? shared : null;
    }
}
