package io.sluice.network.netty;

/**
 * Why the network end of a channel was released: the connection to the peer task executor was lost
 * or could not be made, the peer released its end (its task failed or was cancelled, its attempt
 * was released), or the peer broke the protocol. The task using the channel fails with a
 * {@link io.sluice.network.ChannelReleasedException} caused by this, and the job fails over like
 * after any task failure.
 */
public final class RemoteChannelException extends RuntimeException {
    public RemoteChannelException(String message) {
        super(message);
    }

    public RemoteChannelException(String message, Throwable cause) {
        super(message, cause);
    }
}
