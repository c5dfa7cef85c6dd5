package io.sluice.api.source;

import io.sluice.api.functions.Collector;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * Emits the elements of a list, for tests and demos.
 *
 * <p>The elements are copied at construction, and they must be {@link Serializable}: the source is
 * Java-serialized into the job graph together with its elements. (Only the elements' own classes are
 * checked; a non-serializable field inside an element still fails when the job is submitted.)
 * {@code null} elements are allowed.
 *
 * <p>Subtask {@code i} of {@code p} emits the elements at indices {@code i, i + p, i + 2p, ...}. A
 * reader's position is the index of the next element it would emit, or the list's size once it has
 * emitted all of its elements (4 bytes).
 *
 * <p>Threading: the source is immutable after construction and may be shared; each reader is
 * confined to its task thread, as {@link SourceReader} requires.
 */
public final class CollectionSource<T> implements Source<T> {
    private static final long serialVersionUID = 1L;

    private final ArrayList<T> elements;

    /** Copies {@code elements}; throws {@link IllegalArgumentException} if one is not serializable. */
    public CollectionSource(List<? extends T> elements) {
        Objects.requireNonNull(elements, "CollectionSource: the list of elements must not be null (pass an empty list instead)");
        for (int i = 0; i < elements.size(); i++) {
            T element = elements.get(i);
            if (element != null && !(element instanceof Serializable)) {
                throw new IllegalArgumentException("CollectionSource: element " + i + " is a "
                        + element.getClass().getName() + ", which does not implement java.io.Serializable."
                        + " The source is Java-serialized into the job graph, so its elements must be"
                        + " serializable: make that class implement Serializable, or convert the elements"
                        + " first (for example to strings or tuples)");
            }
        }
        this.elements = new ArrayList<>(elements);
    }

    @SafeVarargs
    public static <T> CollectionSource<T> of(T... elements) {
        return new CollectionSource<>(Arrays.asList(elements));
    }

    /** The number of elements over all subtasks. */
    public int size() {
        return elements.size();
    }

    @Override
    public SourceReader<T> createReader(int subtaskIndex, int parallelism) {
        ReaderPositions.checkSubtask(toString(), subtaskIndex, parallelism);
        return new Reader<>(this, subtaskIndex, parallelism);
    }

    @Override
    public boolean isBounded() {
        return true;
    }

    @Override
    public String toString() {
        return "CollectionSource(" + elements.size() + " elements)";
    }

    /** One subtask's share of the elements. Confined to the task thread. */
    private static final class Reader<T> implements SourceReader<T> {
        private final String description;
        private final List<T> elements;
        private final int subtaskIndex;
        private final int stride;
        private int nextIndex;

        Reader(CollectionSource<T> source, int subtaskIndex, int parallelism) {
            this.description = source + " subtask " + subtaskIndex + " of " + parallelism;
            this.elements = source.elements;
            this.subtaskIndex = subtaskIndex;
            this.stride = parallelism;
            this.nextIndex = Math.min(subtaskIndex, elements.size());
        }

        @Override
        public int emit(Collector<T> out, int maxRecords) {
            int size = elements.size();
            if (nextIndex >= size) {
                return END_OF_INPUT;
            }
            int n = 0;
            while (n < maxRecords && nextIndex < size) {
                out.collect(elements.get(nextIndex));
                n++;
                // Written this way so that nextIndex + stride cannot overflow near Integer.MAX_VALUE.
                nextIndex = size - nextIndex > stride ? nextIndex + stride : size;
            }
            return n;
        }

        @Override
        public byte[] snapshotPosition() {
            return ReaderPositions.encodeInt(nextIndex);
        }

        @Override
        public void restorePosition(byte[] position) {
            int restored = ReaderPositions.decodeInt(description, position);
            int size = elements.size();
            boolean ours = restored >= subtaskIndex && (restored - subtaskIndex) % stride == 0;
            if (restored < 0 || restored > size || (restored < size && !ours)) {
                throw new IllegalArgumentException(description + ": restored position " + restored
                        + " is not an index this subtask reads (it reads " + subtaskIndex + ", "
                        + (subtaskIndex + stride) + ", ... below " + size + ", or " + size
                        + " at the end); was the checkpoint taken with a different list or parallelism?");
            }
            nextIndex = restored;
        }
    }
}
