package io.sluice.state.rocksdb;

import io.sluice.state.KeyGroupRange;
import io.sluice.state.KeyedStateBackend;
import io.sluice.state.KeyedStateBackendContractTest;

/** The keyed state backend contract on RocksDB (every test of {@link KeyedStateBackendContractTest}). */
class RocksDbKeyedStateBackendContractTest extends KeyedStateBackendContractTest {
    @Override
    protected KeyedStateBackend create(KeyGroupRange range, int maxParallelism, io.sluice.util.Clock clock) {
        return RocksDbTestBackends.create(range, maxParallelism, clock);
    }
}
