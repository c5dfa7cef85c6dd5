package io.sluice.api.functions;

import java.io.Serializable;

/**
 * Consumes records at the end of a pipeline. Sinks see records at least once: after a restart,
 * records since the last completed checkpoint are replayed. Keyed state is exactly once.
 */
@FunctionalInterface
public interface SinkFunction<T> extends Serializable {
    void invoke(T value) throws Exception;
}
