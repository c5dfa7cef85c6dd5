package io.sluice.network;

/** What {@link StreamInputProcessor#processNext} found. */
public enum InputStatus {
    /** One buffer or event was processed; call again (it may block until input arrives). */
    MORE_AVAILABLE,
    /** Every channel has delivered {@link EndOfPartition}: there will be no more input. */
    END_OF_INPUT
}
