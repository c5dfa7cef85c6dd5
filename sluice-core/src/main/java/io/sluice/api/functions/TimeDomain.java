package io.sluice.api.functions;

/** Which clock a timer was registered on. */
public enum TimeDomain {
    EVENT_TIME,
    PROCESSING_TIME
}
