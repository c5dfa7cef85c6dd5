package io.sluice.testutil;

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
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;

/**
 * A two-phase-commit sink for runtime tests, writing to a transactional {@link Store}: records are buffered
 * per pre-commit (and at the end of the input), and become visible only when their committable is committed.
 * A committable names its own transaction ({@code <transaction>|<record>,<record>,...}), and committing a
 * transaction again changes nothing, so a restored job that commits a restored committable twice shows each
 * record once. The store is found by id (the sink travels serialized in the job graph; tests share its JVM).
 */
public record CommittingSink(String storeId) implements TwoPhaseCommitSink<Long, String> {
    private static final Map<String, Store> STORES = new ConcurrentHashMap<>();

    /** A new store, registered until {@link Store#close()}. */
    public static Store store() {
        Store store = new Store(UUID.randomUUID().toString());
        STORES.put(store.id(), store);
        return store;
    }

    /** The registered store {@code id}, for test code that runs inside the job (sources). */
    public static Store store(String id) {
        Store store = STORES.get(id);
        if (store == null) {
            throw new IllegalStateException("No committing-sink store " + id + " (closed, or made in another JVM)");
        }
        return store;
    }

    /**
     * The records of one test: visible only once their transaction committed; also how often each sink
     * subtask's writer saw the end of its input. Thread-safe: tasks write, the test reads.
     */
    public static final class Store implements AutoCloseable {
        private final String id;
        private final Set<String> committedTransactions = ConcurrentHashMap.newKeySet();
        private final List<Long> visible = Collections.synchronizedList(new ArrayList<>());
        private final Map<Integer, AtomicInteger> endOfInputs = new ConcurrentHashMap<>();

        private Store(String id) {
            this.id = id;
        }

        public String id() {
            return id;
        }

        /** The committed records, in commit order. */
        public List<Long> committed() {
            synchronized (visible) {
                return List.copyOf(visible);
            }
        }

        public boolean anyCommitted() {
            return !committedTransactions.isEmpty();
        }

        /** How often the writer of sink subtask {@code subtask} saw the end of its input (once per run). */
        public int endOfInputs(int subtask) {
            AtomicInteger n = endOfInputs.get(subtask);
            return n == null ? 0 : n.get();
        }

        void commit(String transaction, List<Long> records) {
            synchronized (visible) {
                if (committedTransactions.add(transaction)) {
                    visible.addAll(records);
                }
            }
        }

        void endOfInput(int subtask) {
            endOfInputs.computeIfAbsent(subtask, s -> new AtomicInteger()).incrementAndGet();
        }

        @Override
        public void close() {
            STORES.remove(id);
        }
    }

    @Override
    public SinkWriter<Long, String> createWriter(RuntimeContext context, List<String> restored) {
        Store store = store(storeId);
        int subtask = context.subtaskIndex();
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
                String c = UUID.randomUUID() + "|" + buffer.stream().map(String::valueOf)
                        .collect(Collectors.joining(","));
                buffer.clear();
                return List.of(c);
            }

            @Override
            public List<String> endOfInput() {
                List<String> last = preCommit(Long.MAX_VALUE);
                store.endOfInput(subtask);
                return last;
            }
        };
    }

    @Override
    public Committer<String> createCommitter(RuntimeContext context) {
        Store store = store(storeId);
        return committable -> {
            int bar = committable.indexOf('|');
            List<Long> records = Arrays.stream(committable.substring(bar + 1).split(","))
                    .map(Long::parseLong).toList();
            store.commit(committable.substring(0, bar), records);
        };
    }

    @Override
    public TypeSerializer<String> committableSerializer() {
        return Serializers.STRING;
    }
}
