package io.sluice.state;

import io.sluice.api.state.ListState;
import io.sluice.api.state.ListStateDescriptor;
import io.sluice.api.state.MapState;
import io.sluice.api.state.MapStateDescriptor;
import io.sluice.api.state.StateDescriptor;
import io.sluice.api.state.ValueState;
import io.sluice.api.state.ValueStateDescriptor;
import io.sluice.core.serialization.Serializers;
import io.sluice.core.serialization.TypeSerializer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import io.sluice.util.Clock;
import io.sluice.core.serialization.TimestampedValue;
import io.sluice.state.ttl.TtlCleaner;
import io.sluice.state.ttl.TtlStates;
import io.sluice.util.SystemClock;

/**
 * Keyed state on the Java heap: one {@link java.util.HashMap} per registered state, keyed by the
 * user key, so that a state access is one hash lookup and allocates nothing beyond the user's own
 * values.
 *
 * <p><b>Key check.</b> {@link #setCurrentKey} computes the key's group ({@code hashCode}, a hash
 * mix and a {@code floorMod}; a few nanoseconds) and throws {@link IllegalStateException} if the
 * group is outside {@link #keyGroupRange()}. Without the check, a record routed to the wrong
 * subtask would silently create state that a later restore drops.
 *
 * <p><b>Values are stored by reference, snapshots copy them.</b> Values handed to state (a
 * {@code ValueState} value, list elements, map keys and values) are stored by reference, so user
 * code may mutate what it got from state. Keys are stored by reference too and must be immutable,
 * with a value-based {@code hashCode} that is the same in every JVM (see
 * {@link KeyGroups#keyGroupFor}); snapshots write them with the backend's key serializer
 * (by default the dynamic serializer, {@link io.sluice.core.serialization.Serializers#dynamic()}).
 *
 * <p><b>Snapshots.</b> {@link #snapshot()} takes, on the task thread, a shallow copy of each
 * state's table. Values of value states are copied through the state's serializer
 * ({@link io.sluice.core.serialization.TypeSerializer#copy}, the identity for immutable types). The
 * list and map containers of list and map states are shared with the snapshot when all they hold is
 * immutable, and copied by the state before its next change to them (copy-on-write, tracked by
 * {@link #snapshotEpoch}); only containers changed since the previous snapshot are looked at, and
 * those holding mutable objects are copied at once. So the synchronous part costs one table copy per
 * state plus work proportional to what changed; serializing happens later in
 * {@link KeyedStateSnapshot#writeTo}, in the key-group-organised {@link KeyedSnapshotFormat}, and
 * may run while the task goes on changing its state.
 *
 * <p><b>Registration.</b> Asking again for a state with the same name returns the same object; the
 * serializers of the latest descriptor are used for later snapshots. Asking with the same name but
 * another kind throws {@link IllegalArgumentException}.
 *
 * <p>Threading: not thread-safe. Every method, and every state object, is used from the owning
 * task thread only; only {@link KeyedStateSnapshot#writeTo} of a taken snapshot runs elsewhere.
 */
public final class HeapKeyedStateBackend implements KeyedStateBackend {
    private final KeyGroupRange range;
    private final int firstKeyGroup;
    private final int lastKeyGroup;
    private final int maxParallelism;
    private final TypeSerializer<Object> keySerializer;
    private final Clock clock;
    private final String owner;
    private final TtlCleaner ttlCleaner;
    /** By name, in registration order (which is the order snapshots write them in). */
    private final Map<String, HeapState<?>> states = new LinkedHashMap<>();
    private boolean restored;

    /** Read by the state objects on every access. */
    Object currentKey;
    /**
     * The number of snapshots taken: list and map containers stamped with it belong to the live
     * state alone, older ones may be shared with a snapshot (see {@link HeapState#snapshotTable}).
     * Wraps after 2^32 snapshots, long after any job's life.
     */
    int snapshotEpoch;

    /**
     * @param range          the key groups this subtask owns, see {@link KeyGroups#rangeForSubtask}
     * @param maxParallelism the job's number of key groups; must be the same for every restore
     */
    public HeapKeyedStateBackend(KeyGroupRange range, int maxParallelism) {
        this(range, maxParallelism, Serializers.dynamic());
    }

    /**
     * @param keySerializer writes the keys into snapshots; the keys' type must be what it accepts
     */
    public HeapKeyedStateBackend(KeyGroupRange range, int maxParallelism, TypeSerializer<?> keySerializer) {
        this(range, maxParallelism, keySerializer, SystemClock.INSTANCE);
    }

    /**
     * @param clock processing time, for state time-to-live
     */
    public HeapKeyedStateBackend(KeyGroupRange range, int maxParallelism, TypeSerializer<?> keySerializer, Clock clock) {
        this(range, maxParallelism, keySerializer, clock, "this task");
    }

    /**
     * @param owner names the task in messages
     */
    @SuppressWarnings("unchecked")
    public HeapKeyedStateBackend(KeyGroupRange range, int maxParallelism, TypeSerializer<?> keySerializer, Clock clock,
                                 String owner) {
        Objects.requireNonNull(range, "key-group range");
        this.owner = Objects.requireNonNull(owner, "owner");
        this.ttlCleaner = new TtlCleaner(clock);
        this.clock = Objects.requireNonNull(clock, "clock");
        this.keySerializer = (TypeSerializer<Object>) Objects.requireNonNull(keySerializer, "key serializer");
        if (maxParallelism <= 0) {
            throw new IllegalArgumentException("Max parallelism must be positive, was " + maxParallelism);
        }
        if (range.size() > 0 && (range.start() < 0 || range.end() >= maxParallelism)) {
            throw new IllegalArgumentException("Key-group range " + range + " is not within [0, " + (maxParallelism - 1)
                    + "], the key groups of max parallelism " + maxParallelism
                    + ": compute it with KeyGroups.rangeForSubtask");
        }
        this.range = range;
        this.firstKeyGroup = range.start();
        this.lastKeyGroup = range.end();
        this.maxParallelism = maxParallelism;
    }

    /**
     * Sets the key for the following state accesses.
     *
     * @throws NullPointerException  if {@code key} is null
     * @throws IllegalStateException if the key's group is not in this backend's range
     */
    @Override
    public void setCurrentKey(Object key) {
        int keyGroup = KeyGroups.keyGroupFor(key, maxParallelism);
        if (keyGroup < firstKeyGroup || keyGroup > lastKeyGroup) {
            throw new IllegalStateException("Key " + key + " belongs to key group " + keyGroup
                    + ", outside this subtask's key groups " + range + ": the record was routed to the wrong"
                    + " subtask. Partition the stream with KeyGroups and the same max parallelism ("
                    + maxParallelism + "), and make sure the key's hashCode is deterministic");
        }
        currentKey = key;
        ttlCleaner.onRecord();
    }

    @Override
    public Object currentKey() {
        return currentKey;
    }

    @Override
    public KeyGroupRange keyGroupRange() {
        return range;
    }

    public int maxParallelism() {
        return maxParallelism;
    }

    /** With a time-to-live: a state of timestamped values behind a decorator ({@link TtlStates}). */
    @Override
    public <T> ValueState<T> getValueState(ValueStateDescriptor<T> descriptor) {
        if (descriptor.ttlConfig() != null) {
            @SuppressWarnings("unchecked")
            HeapValueState<TimestampedValue<T>> internal = (HeapValueState<TimestampedValue<T>>) register(
                    TtlStates.internal(descriptor));
            ttlCleaner.register(descriptor.name(), descriptor.ttlConfig(), internal::removeExpired);
            return TtlStates.value(internal, descriptor.ttlConfig(), clock);
        }
        @SuppressWarnings("unchecked")
        HeapValueState<T> state = (HeapValueState<T>) register(descriptor);
        return state;
    }

    @Override
    public <T> ListState<T> getListState(ListStateDescriptor<T> descriptor) {
        if (descriptor.ttlConfig() != null) {
            @SuppressWarnings("unchecked")
            HeapListState<TimestampedValue<T>> internal = (HeapListState<TimestampedValue<T>>) register(
                    TtlStates.internal(descriptor));
            ttlCleaner.register(descriptor.name(), descriptor.ttlConfig(), internal::removeExpired);
            return TtlStates.list(internal, descriptor.ttlConfig(), clock, descriptor.name());
        }
        @SuppressWarnings("unchecked")
        HeapListState<T> state = (HeapListState<T>) register(descriptor);
        return state;
    }

    @Override
    public <K, V> MapState<K, V> getMapState(MapStateDescriptor<K, V> descriptor) {
        if (descriptor.ttlConfig() != null) {
            @SuppressWarnings("unchecked")
            HeapMapState<K, TimestampedValue<V>> internal = (HeapMapState<K, TimestampedValue<V>>) register(
                    TtlStates.internal(descriptor));
            ttlCleaner.register(descriptor.name(), descriptor.ttlConfig(), internal::removeExpired);
            return TtlStates.map(internal, descriptor.ttlConfig(), clock);
        }
        @SuppressWarnings("unchecked")
        HeapMapState<K, V> state = (HeapMapState<K, V>) register(descriptor);
        return state;
    }

    /** The background clean-up of this backend's states with a time-to-live (for tests). */
    public TtlCleaner ttlCleaner() {
        return ttlCleaner;
    }

    /**
     * The sum over states of the keys with a value in that state: a key with state in two states
     * counts twice. Exact for a backend with one state.
     */
    @Override
    public List<Object> keysOf(String stateName) {
        HeapState<?> state = states.get(stateName);
        return state == null ? List.of() : new ArrayList<>(state.table.keySet());
    }

    @Override
    public long numberOfKeys() {
        long n = 0;
        for (HeapState<?> state : states.values()) {
            n += state.size();
        }
        return n;
    }

    @Override
    public KeyedStateSnapshot snapshot() {
        List<StateMetaInfo> metaInfos = new ArrayList<>(states.size());
        List<Map<Object, Object>> tables = new ArrayList<>(states.size());
        int oldEpoch = snapshotEpoch;
        int newEpoch = oldEpoch + 1;
        for (HeapState<?> state : states.values()) {
            metaInfos.add(state.metaInfo());
            tables.add(state.snapshotTable(oldEpoch, newEpoch));
        }
        snapshotEpoch = newEpoch;
        return new HeapKeyedStateSnapshot(range, maxParallelism, keySerializer, metaInfos, tables);
    }

    /**
     * Restores the key groups of this backend's range from {@code snapshots}; registers every state
     * they describe, so that a later {@code get*State} with the same name and kind returns it.
     *
     * @throws IllegalStateException if called twice, or after a state was registered
     * @throws UnreadableSnapshotException if a snapshot has an unknown format version or cannot be
     *         decoded, naming which one
     */
    @Override
    public void restoreFrom(List<KeyedSnapshotInput> snapshots) {
        if (restored || !states.isEmpty()) {
            throw new IllegalStateException("restore must be called once, before any state is registered;"
                    + (restored ? " this backend was already restored" : " states " + states.keySet() + " already exist"));
        }
        restored = true;
        KeyedSnapshotReader reader = new KeyedSnapshotReader(range, maxParallelism, this::registerRestored);
        for (int i = 0; i < snapshots.size(); i++) {
            reader.readSnapshot(snapshots.get(i), i);
        }
    }

    private HeapState<?> register(StateDescriptor descriptor) {
        Objects.requireNonNull(descriptor, "state descriptor");
        StateMetaInfo metaInfo = StateMetaInfo.of(descriptor);
        HeapState<?> state = states.get(descriptor.name());
        if (state == null) {
            state = create(metaInfo);
            states.put(metaInfo.name(), state);
        } else {
            requireSameKind(state, metaInfo, "");
            if (StateRegistration.compare(state.metaInfo(), metaInfo, owner) == StateRegistration.Outcome.MIGRATE) {
                state.checkWritableWith(metaInfo, owner);
            }
            state.metaInfo(metaInfo);
        }
        return state;
    }

    private HeapState<?> registerRestored(StateMetaInfo metaInfo) {
        HeapState<?> state = states.get(metaInfo.name());
        if (state == null) {
            state = create(metaInfo);
            states.put(metaInfo.name(), state);
        } else {
            requireSameKind(state, metaInfo, " in another snapshot of this restore");
        }
        return state;
    }

    private static void requireSameKind(HeapState<?> existing, StateMetaInfo requested, String where) {
        if (existing.kind() != requested.kind()) {
            throw new io.sluice.api.errors.StateKindConflictException("State '" + requested.name() + "' is already registered as "
                    + existing.kind() + " state" + where + " and cannot also be " + requested.kind()
                    + " state: give the " + requested.kind() + " state a different name");
        }
    }

    private HeapState<?> create(StateMetaInfo metaInfo) {
        return switch (metaInfo.kind()) {
            case VALUE -> new HeapValueState<>(this, metaInfo);
            case LIST -> new HeapListState<>(this, metaInfo);
            case MAP -> new HeapMapState<>(this, metaInfo);
        };
    }
}
