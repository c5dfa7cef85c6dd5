package io.sluice.config;

/** The values of {@link RestartOptions#STRATEGY}, written {@code none}, {@code fixed-delay}, ... */
public enum RestartStrategyType {
    NONE,
    FIXED_DELAY,
    EXPONENTIAL_DELAY,
    FAILURE_RATE
}
