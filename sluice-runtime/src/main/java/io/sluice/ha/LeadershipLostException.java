package io.sluice.ha;

/** A write was refused because the writer no longer holds the leadership it claimed. */
public final class LeadershipLostException extends Exception {
    public LeadershipLostException(String message) {
        super(message);
    }
}
