package io.sluice.api.tuple;

/** An immutable pair, the usual shape of keyed results such as {@code (key, count)}. */
public record Tuple2<A, B>(A f0, B f1) {
    public static <A, B> Tuple2<A, B> of(A f0, B f1) {
        return new Tuple2<>(f0, f1);
    }
}
