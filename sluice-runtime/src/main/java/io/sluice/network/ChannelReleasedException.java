package io.sluice.network;

/**
 * A channel or input gate was released (its job attempt failed, was cancelled or ended) while a
 * producer or consumer was using it. The cause is the reason given to the release.
 */
public final class ChannelReleasedException extends RuntimeException {
    public ChannelReleasedException(String what, Throwable cause) {
        super(what + " was released" + (cause == null || cause.getMessage() == null ? "" : ": " + cause.getMessage()), cause);
    }
}
