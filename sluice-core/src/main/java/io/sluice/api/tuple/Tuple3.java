package io.sluice.api.tuple;

/** An immutable triple. */
public record Tuple3<A, B, C>(A f0, B f1, C f2) {
    public static <A, B, C> Tuple3<A, B, C> of(A f0, B f1, C f2) {
        return new Tuple3<>(f0, f1, f2);
    }
}
