package io.sluice.state;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.api.errors.UnrecoverableJobException;
import io.sluice.config.Configuration;
import io.sluice.config.StateBackendOptions;
import io.sluice.config.StateBackendType;
import org.junit.jupiter.api.Test;

/** Finding backends by name, the default of a task executor, and what an unknown name says. */
class StateBackendsTest {
    @Test
    void theDefaultIsTheHeapAndAJobsChoiceWins() {
        try (StateBackends backends = StateBackends.fromConfiguration(new Configuration())) {
            assertThat(backends.defaultName()).isEqualTo("heap");
            assertThat(backends.backend(null)).isInstanceOf(HeapStateBackend.class);
            assertThat(backends.backend("heap")).isSameAs(backends.backend(null));
        }
    }

    @Test
    void aBackendNotOnTheClassPathIsNamedWithTheKnownOnesAndWhatToDo() {
        // sluice-core alone: no RocksDB here.
        try (StateBackends backends = StateBackends.fromConfiguration(new Configuration()
                .set(StateBackendOptions.BACKEND, StateBackendType.ROCKSDB))) {
            assertThat(backends.defaultName()).isEqualTo("rocksdb");
            assertThatThrownBy(() -> backends.backend(null))
                    .isInstanceOf(UnknownStateBackendException.class)
                    .isInstanceOf(UnrecoverableJobException.class)
                    .hasMessageContaining("State backend 'rocksdb' (state.backend) is not on this task executor's class path")
                    .hasMessageContaining("known here: [heap]")
                    .hasMessageContaining("sluice-state-rocksdb");
        }
    }

    @Test
    void aClosedRegistryCreatesNothing() {
        StateBackends backends = StateBackends.fromConfiguration(new Configuration());
        backends.close();
        assertThatThrownBy(() -> backends.backend("heap")).hasMessageContaining("closed");
    }
}
