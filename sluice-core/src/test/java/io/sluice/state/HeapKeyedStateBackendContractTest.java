package io.sluice.state;

/** The keyed state backend contract on the heap. */
class HeapKeyedStateBackendContractTest extends KeyedStateBackendContractTest {
    @Override
    protected KeyedStateBackend create(KeyGroupRange range, int maxParallelism, io.sluice.util.Clock clock) {
        return new HeapKeyedStateBackend(range, maxParallelism, io.sluice.core.serialization.Serializers.dynamic(), clock);
    }
}
