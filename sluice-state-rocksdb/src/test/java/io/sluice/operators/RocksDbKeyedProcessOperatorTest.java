package io.sluice.operators;

import io.sluice.state.KeyGroupRange;
import io.sluice.state.KeyedStateBackend;
import io.sluice.state.rocksdb.RocksDbTestBackends;

/** Every keyed process operator test (timers in both domains, restored), with state in RocksDB. */
class RocksDbKeyedProcessOperatorTest extends KeyedProcessOperatorTest {
    @Override
    KeyedStateBackend newBackend(KeyGroupRange range, int maxParallelism) {
        return RocksDbTestBackends.create(range, maxParallelism);
    }
}
