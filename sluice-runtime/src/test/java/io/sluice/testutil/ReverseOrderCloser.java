package io.sluice.testutil;

import java.util.ArrayList;
import java.util.List;

/**
 * What a test started (processes, RPC services), closed last first when the test ends, so that
 * what was started later and may depend on earlier things goes first. Closing is best effort: a
 * failure to close one does not stop the others from closing, and does not fail the test (its
 * assertions have run already). Not thread-safe: use it from the test's own thread.
 */
public final class ReverseOrderCloser implements AutoCloseable {
    private final List<AutoCloseable> started = new ArrayList<>();

    /** Registers {@code resource} to be closed by {@link #close()}, and returns it. */
    public <T extends AutoCloseable> T add(T resource) {
        started.add(resource);
        return resource;
    }

    /** Closes everything added, last first, and forgets it. */
    @Override
    public void close() {
        for (int i = started.size() - 1; i >= 0; i--) {
            try {
                started.get(i).close();
            } catch (Exception e) {
                // best effort: the remaining resources are still closed
            }
        }
        started.clear();
    }
}
