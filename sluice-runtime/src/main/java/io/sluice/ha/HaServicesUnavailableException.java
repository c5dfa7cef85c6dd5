package io.sluice.ha;

/**
 * The HA services could not be started because what they run on cannot be reached (ZooKeeper not
 * answering within its connection timeout, say). The message names what was tried and what to
 * check; a process that cannot start without its HA services reports it and exits, without a stack
 * trace.
 */
public class HaServicesUnavailableException extends IllegalStateException {
    public HaServicesUnavailableException(String message) {
        super(message);
    }
}
