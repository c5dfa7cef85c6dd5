package io.sluice.rpc;

/** The value of a future that only says "done". */
public enum Acknowledge {
    INSTANCE
}
