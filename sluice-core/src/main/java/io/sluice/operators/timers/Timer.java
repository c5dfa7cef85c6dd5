package io.sluice.operators.timers;

/** One registered timer: a time and the key it belongs to. Immutable. */
record Timer(long time, Object key) {
}
