package io.sluice.jar;

/**
 * A hold on a job's class loader: the loader stays open while any lease on it is open, and is
 * closed (its jar file released) when the last one is. The job manager holds one while it runs the
 * job, each task one while it runs. Jobs without a jar get a lease on the runtime's own loader,
 * whose {@link #close()} does nothing.
 *
 * <p>Threading: any thread; {@link #close()} is idempotent and never blocks (the loader is closed on
 * the I/O executor).
 */
public interface ClassLoaderLease extends AutoCloseable {

    ClassLoader classLoader();

    @Override
    void close();

    /** A lease on {@code loader} that keeps nothing open. */
    static ClassLoaderLease unmanaged(ClassLoader loader) {
        return new ClassLoaderLease() {
            @Override
            public ClassLoader classLoader() {
                return loader;
            }

            @Override
            public void close() {
            }
        };
    }
}
