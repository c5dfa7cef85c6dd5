package io.sluice.api;

/** The end of a pipeline; configures the sink operator. */
public final class DataStreamSink<T> {
    private final Transformation<?> transformation;

    DataStreamSink(Transformation<?> transformation) {
        this.transformation = transformation;
    }

    public DataStreamSink<T> name(String name) {
        transformation.name = "Sink: " + name;
        return this;
    }

    public DataStreamSink<T> setParallelism(int parallelism) {
        transformation.parallelism = parallelism;
        return this;
    }

    public DataStreamSink<T> disableChaining() {
        transformation.chainingAllowed = false;
        return this;
    }
}
