package io.sluice.network;

/** What {@link StreamInputProcessor#processNext} found. */
public enum InputStatus {
    /** One buffer or event was processed; call again (it may block until input arrives). */
    MORE_AVAILABLE,
    /** Nothing arrived within the processor's poll timeout; call again (the task may do timed work first). */
    NOTHING_AVAILABLE,
    /** Every channel has delivered {@link EndOfPartition}: there will be no more input. */
    END_OF_INPUT
}
