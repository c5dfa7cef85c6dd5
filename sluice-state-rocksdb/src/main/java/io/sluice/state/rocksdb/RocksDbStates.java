package io.sluice.state.rocksdb;

import io.sluice.api.errors.StateKindConflictException;
import io.sluice.api.state.StateDescriptor;
import io.sluice.state.StateMetaInfo;
import io.sluice.state.StateRegistration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.rocksdb.ColumnFamilyHandle;

/**
 * The registered states of a {@link RocksDbKeyedStateBackend}, by name in registration order (the
 * order snapshots write them in), each in its own column family: creates a state on its first
 * registration (a value, list or map state by the descriptor's kind), checks a later registration of
 * the same name (same kind; serializers compatible, or the state migrated to the new ones,
 * {@link StateRegistration}), and scans the keys of a state.
 *
 * <p>Threading: task thread only, except {@link #columns()}, which any thread may read (the column
 * families are only used inside the instance's guard).
 */
final class RocksDbStates {
    private final RocksDbKeyedStateBackend backend;
    private final RocksDbInstance instance;
    private final RocksDbKeys keys;
    /** By name, in registration order. */
    private final Map<String, RocksDbState> states = new LinkedHashMap<>();
    /** The column families of {@link #states}, for metrics threads (copy on write). */
    private volatile List<ColumnFamilyHandle> columns = List.of();

    RocksDbStates(RocksDbKeyedStateBackend backend, RocksDbInstance instance, RocksDbKeys keys) {
        this.backend = backend;
        this.instance = instance;
        this.keys = keys;
    }

    /** The state of {@code descriptor}: the registered one (checked and perhaps migrated), or a new one. */
    RocksDbState register(StateDescriptor descriptor) {
        Objects.requireNonNull(descriptor, "state descriptor");
        StateMetaInfo requested = StateMetaInfo.of(descriptor);
        RocksDbState state = states.get(requested.name());
        if (state == null) {
            return create(requested);
        }
        requireSameKind(state.metaInfo(), requested, "");
        StateMetaInfo current = state.metaInfo();
        StateRegistration.Outcome outcome = StateRegistration.compare(current, requested, instance.owner());
        if (outcome == StateRegistration.Outcome.MIGRATE) {
            state.migrateTo(requested);
        }
        state.metaInfo(requested);
        return state;
    }

    static void requireSameKind(StateMetaInfo existing, StateMetaInfo requested, String where) {
        if (existing.kind() != requested.kind()) {
            throw new StateKindConflictException("State '" + requested.name() + "' is already registered as "
                    + existing.kind() + " state" + where + " and cannot also be " + requested.kind()
                    + " state: give the " + requested.kind() + " state a different name");
        }
    }

    /** A new state of {@code metaInfo} in a new column family. */
    RocksDbState create(StateMetaInfo metaInfo) {
        return adopt(metaInfo, instance.createColumn(metaInfo.name()));
    }

    /** Registers a state whose column family exists already (created, or restored with the instance). */
    RocksDbState adopt(StateMetaInfo metaInfo, ColumnFamilyHandle column) {
        RocksDbState state = switch (metaInfo.kind()) {
            case VALUE -> new RocksDbValueState<>(backend, column, metaInfo);
            case LIST -> new RocksDbListState<>(backend, column, metaInfo);
            case MAP -> new RocksDbMapState<>(backend, column, metaInfo);
        };
        state.index = states.size();
        states.put(metaInfo.name(), state);
        List<ColumnFamilyHandle> all = new ArrayList<>(columns);
        all.add(column);
        columns = List.copyOf(all);
        return state;
    }

    /** The state named {@code name}, or {@code null}. */
    RocksDbState get(String name) {
        return states.get(name);
    }

    boolean isEmpty() {
        return states.isEmpty();
    }

    Set<String> names() {
        return states.keySet();
    }

    /** In registration order. */
    Collection<RocksDbState> all() {
        return states.values();
    }

    /** The column families of the states. Any thread. */
    List<ColumnFamilyHandle> columns() {
        return columns;
    }

    /** The keys with an entry in the state {@code stateName}, in RocksDB order; none if there is no such state. */
    List<Object> keysOf(String stateName) {
        RocksDbState state = states.get(stateName);
        List<Object> found = new ArrayList<>();
        if (state != null) {
            keys.forEachKey(instance.db(), state.column(), instance.readOptions, (group, key) -> found.add(key));
        }
        return found;
    }

    /** The keys with any state, summed over states (a key with two states counts twice). */
    long numberOfKeys() {
        long[] n = {0};
        for (RocksDbState state : states.values()) {
            keys.forEachKey(instance.db(), state.column(), instance.readOptions, (group, key) -> n[0]++);
        }
        return n[0];
    }
}
