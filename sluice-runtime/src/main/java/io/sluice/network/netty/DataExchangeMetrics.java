package io.sluice.network.netty;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.sluice.metrics.MeterGroup;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.IntSupplier;

/**
 * What one task executor's data exchange moved over TCP: buffers (data and events) and their bytes
 * (frame headers included), sent by its data server and received by its client. Incremented once
 * per buffer on the event loops; read by any thread (metrics scrapes, tests, the benchmark).
 */
public final class DataExchangeMetrics {
    private final LongAdder buffersSent = new LongAdder();
    private final LongAdder bytesSent = new LongAdder();
    private final LongAdder buffersReceived = new LongAdder();
    private final LongAdder bytesReceived = new LongAdder();

    void sent(int bytes) {
        buffersSent.increment();
        bytesSent.add(bytes);
    }

    void received(int bytes) {
        buffersReceived.increment();
        bytesReceived.add(bytes);
    }

    public long buffersSent() {
        return buffersSent.sum();
    }

    public long bytesSent() {
        return bytesSent.sum();
    }

    public long buffersReceived() {
        return buffersReceived.sum();
    }

    public long bytesReceived() {
        return bytesReceived.sum();
    }

    /**
     * Registers {@code sluice.network.buffers.sent|received}, {@code sluice.network.sent|received} (bytes)
     * and the gauge {@code sluice.network.connections} tagged with {@code taskexecutor}; closing the
     * group removes them.
     */
    MeterGroup bind(MeterRegistry registry, String taskExecutor, IntSupplier connections) {
        MeterGroup group = new MeterGroup(registry, Tags.of("taskexecutor", taskExecutor));
        group.add(r -> FunctionCounter.builder("sluice.network.buffers.sent", this, DataExchangeMetrics::buffersSent)
                .tags(group.tags()).description("Buffers (data and events) sent to other task executors")
                .register(r));
        group.add(r -> FunctionCounter.builder("sluice.network.sent", this, DataExchangeMetrics::bytesSent)
                .tags(group.tags()).baseUnit("bytes")
                .description("Bytes sent to other task executors (frames with their headers)").register(r));
        group.add(r -> FunctionCounter.builder("sluice.network.buffers.received", this, DataExchangeMetrics::buffersReceived)
                .tags(group.tags()).description("Buffers (data and events) received from other task executors")
                .register(r));
        group.add(r -> FunctionCounter.builder("sluice.network.received", this, DataExchangeMetrics::bytesReceived)
                .tags(group.tags()).baseUnit("bytes")
                .description("Bytes received from other task executors (frames with their headers)").register(r));
        group.add(r -> Gauge.builder("sluice.network.connections", connections, s -> s.getAsInt())
                .tags(group.tags()).description("Open data-exchange connections (both directions)")
                .register(r));
        return group;
    }
}
