package io.sluice.api.source;

import java.util.ArrayList;
import java.util.List;

/** Test helpers that drive {@link SourceReader}s the way a task does. */
final class Readers {
    private Readers() {}

    /** Emits until end of input, {@code batch} records per call; fails if the reader never ends. */
    static <T> List<T> drain(SourceReader<T> reader, int batch) throws Exception {
        List<T> out = new ArrayList<>();
        for (int calls = 0; calls < 1_000_000; calls++) {
            int before = out.size();
            int n = reader.emit(out::add, batch);
            if (n == SourceReader.END_OF_INPUT) {
                return out;
            }
            if (n != out.size() - before || n > batch) {
                throw new AssertionError("emit returned " + n + " but collected " + (out.size() - before)
                        + " with maxRecords " + batch);
            }
        }
        throw new AssertionError("reader did not reach end of input");
    }

    /** Emits exactly {@code count} records (the reader must have that many ready). */
    static <T> List<T> take(SourceReader<T> reader, int count) throws Exception {
        List<T> out = new ArrayList<>();
        for (int calls = 0; calls < 1_000_000 && out.size() < count; calls++) {
            int n = reader.emit(out::add, count - out.size());
            if (n == SourceReader.END_OF_INPUT) {
                throw new AssertionError("end of input after " + out.size() + " of " + count + " records");
            }
        }
        if (out.size() != count) {
            throw new AssertionError("only " + out.size() + " of " + count + " records were emitted");
        }
        return out;
    }

    /** The union of all subtasks' output, each drained to the end. */
    static <T> List<T> drainAll(Source<T> source, int parallelism, int batch) throws Exception {
        List<T> all = new ArrayList<>();
        for (int i = 0; i < parallelism; i++) {
            try (SourceReader<T> reader = source.createReader(i, parallelism)) {
                all.addAll(drain(reader, batch));
            }
        }
        return all;
    }
}
