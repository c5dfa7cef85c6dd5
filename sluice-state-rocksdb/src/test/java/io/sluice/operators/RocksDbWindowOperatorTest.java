package io.sluice.operators;

import io.sluice.state.KeyGroupRange;
import io.sluice.state.KeyedStateBackend;
import io.sluice.state.rocksdb.RocksDbTestBackends;

/** Every window operator test, with window contents and timers in RocksDB. */
class RocksDbWindowOperatorTest extends WindowOperatorTest {
    @Override
    KeyedStateBackend newBackend(KeyGroupRange range, int maxParallelism) {
        return RocksDbTestBackends.create(range, maxParallelism);
    }
}
