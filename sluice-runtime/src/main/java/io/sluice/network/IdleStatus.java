package io.sluice.network;

/**
 * The producer of a channel became idle (it expects to send nothing for a while, so its consumer
 * computes its watermark without this channel) or active again. Immutable; two shared instances.
 */
public enum IdleStatus implements NetworkEvent {
    IDLE,
    ACTIVE
}
