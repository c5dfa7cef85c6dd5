package io.sluice.network;

import io.sluice.api.functions.KeySelector;
import io.sluice.state.KeyGroups;
import java.io.Serializable;
import java.util.Objects;

/**
 * How the records of one edge are spread over the consumer subtasks. Immutable and serializable
 * (it travels in the job graph); the per-record choice is made by the {@link RecordWriter}, which
 * keeps any state (such as the round-robin position) itself.
 *
 * <ul>
 *   <li>{@link Kind#FORWARD}: producer subtask {@code i} feeds consumer subtask {@code i} only;
 *       valid only when both sides have the same parallelism.
 *   <li>{@link Kind#REBALANCE}: each producer deals its records round robin over all consumers.
 *   <li>{@link Kind#HASH}: a record goes to the consumer that owns its key's key group, as
 *       {@link KeyGroups} defines, so keyed state and records meet on the same subtask.
 * </ul>
 */
public final class Partitioner<T> implements Serializable {
    private static final long serialVersionUID = 1L;

    /** The largest max parallelism a hash partitioner accepts (its lookup table has one slot per key group). */
    public static final int MAX_KEY_GROUPS = 1 << 15;

    public enum Kind { FORWARD, REBALANCE, HASH }

    private final Kind kind;
    private final KeySelector<T, ?> keySelector;
    private final int maxParallelism;

    private Partitioner(Kind kind, KeySelector<T, ?> keySelector, int maxParallelism) {
        this.kind = kind;
        this.keySelector = keySelector;
        this.maxParallelism = maxParallelism;
    }

    public static <T> Partitioner<T> forward() {
        return new Partitioner<>(Kind.FORWARD, null, 0);
    }

    public static <T> Partitioner<T> rebalance() {
        return new Partitioner<>(Kind.REBALANCE, null, 0);
    }

    public static <T> Partitioner<T> hash(KeySelector<T, ?> keySelector, int maxParallelism) {
        Objects.requireNonNull(keySelector, "keySelector");
        if (maxParallelism < 1 || maxParallelism > MAX_KEY_GROUPS) {
            throw new IllegalArgumentException("The max parallelism of a keyed edge must be in [1, " + MAX_KEY_GROUPS
                    + "], not " + maxParallelism);
        }
        return new Partitioner<>(Kind.HASH, keySelector, maxParallelism);
    }

    public Kind kind() {
        return kind;
    }

    /** The key selector of a {@link Kind#HASH} partitioner, otherwise {@code null}. */
    public KeySelector<T, ?> keySelector() {
        return keySelector;
    }

    /** The number of key groups of a {@link Kind#HASH} partitioner, otherwise 0. */
    public int maxParallelism() {
        return maxParallelism;
    }

    /** Fails with a message naming the problem if this partitioner cannot connect these parallelisms. */
    public void checkParallelism(int producerParallelism, int consumerParallelism) {
        if (producerParallelism < 1 || consumerParallelism < 1) {
            throw new IllegalArgumentException("Parallelism must be at least 1, not producer=" + producerParallelism
                    + ", consumer=" + consumerParallelism);
        }
        if (kind == Kind.FORWARD && producerParallelism != consumerParallelism) {
            throw new IllegalArgumentException("A FORWARD edge needs equal parallelism on both sides, but the producer has "
                    + producerParallelism + " subtasks and the consumer " + consumerParallelism
                    + "; use rebalance() or a keyed edge instead");
        }
        if (kind == Kind.HASH && consumerParallelism > maxParallelism) {
            throw new IllegalArgumentException("A keyed edge with max parallelism " + maxParallelism
                    + " cannot feed " + consumerParallelism + " consumer subtasks: some would own no key group");
        }
    }

    /**
     * The consumer subtasks that producer subtask {@code producerSubtask} writes to, in channel
     * order: the record writer's channel {@code c} must lead to consumer subtask {@code result[c]}.
     */
    public int[] consumerSubtasks(int producerSubtask, int consumerParallelism) {
        if (kind == Kind.FORWARD) {
            return new int[] {producerSubtask};
        }
        int[] all = new int[consumerParallelism];
        for (int i = 0; i < consumerParallelism; i++) {
            all[i] = i;
        }
        return all;
    }

    /**
     * For {@link Kind#HASH}: the channel of each key group when writing to {@code numberOfChannels}
     * consumers, so the writer needs one table look-up per record instead of a division.
     */
    int[] keyGroupToChannel(int numberOfChannels) {
        if (kind != Kind.HASH) {
            throw new IllegalStateException("Only a HASH partitioner maps key groups, this one is " + kind);
        }
        int[] table = new int[maxParallelism];
        for (int keyGroup = 0; keyGroup < maxParallelism; keyGroup++) {
            table[keyGroup] = KeyGroups.subtaskForKeyGroup(keyGroup, maxParallelism, numberOfChannels);
        }
        return table;
    }

    @Override
    public String toString() {
        return kind == Kind.HASH ? "HASH(maxParallelism=" + maxParallelism + ")" : kind.name();
    }
}
