package io.sluice.operators;

import io.sluice.api.functions.Collector;

/** Where an operator emits: the next operator in the chain, or the task's record writers. */
public interface Output<T> extends Collector<T> {
}
