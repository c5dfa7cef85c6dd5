package io.sluice.taskexecutor;

import io.sluice.api.functions.RuntimeContext;
import io.sluice.api.sink.Committer;
import io.sluice.api.sink.SinkWriter;
import io.sluice.api.sink.TwoPhaseCommitSink;
import io.sluice.core.serialization.Serializers;
import io.sluice.core.serialization.TypeSerializer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;

/**
 * A two-phase-commit sink for task tests: records are buffered per pre-commit and become visible in its
 * {@link Store} only when committed. The store is found by id (the sink travels serialized in the job graph).
 */
record CommittingSink(String storeId) implements TwoPhaseCommitSink<Long, String> {
    private static final Map<String, Store> STORES = new ConcurrentHashMap<>();

    /** The committed records of one test. */
    record Store(String id, List<Long> visible) {
        List<Long> committed() {
            synchronized (visible) {
                return List.copyOf(visible);
            }
        }
    }

    static Store store() {
        Store store = new Store(UUID.randomUUID().toString(), Collections.synchronizedList(new ArrayList<>()));
        STORES.put(store.id(), store);
        return store;
    }

    @Override
    public SinkWriter<Long, String> createWriter(RuntimeContext context, List<String> restored) {
        return new SinkWriter<>() {
            private final List<Long> buffer = new ArrayList<>();

            @Override
            public void write(Long value) {
                buffer.add(value);
            }

            @Override
            public List<String> preCommit(long checkpointId) {
                if (buffer.isEmpty()) {
                    return List.of();
                }
                String c = buffer.stream().map(String::valueOf).collect(Collectors.joining(","));
                buffer.clear();
                return List.of(c);
            }
        };
    }

    @Override
    public Committer<String> createCommitter(RuntimeContext context) {
        Store store = STORES.get(storeId);
        return c -> store.visible().addAll(Arrays.stream(c.split(",")).map(Long::parseLong).toList());
    }

    @Override
    public TypeSerializer<String> committableSerializer() {
        return Serializers.STRING;
    }
}
