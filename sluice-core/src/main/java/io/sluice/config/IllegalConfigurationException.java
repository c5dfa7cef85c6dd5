package io.sluice.config;

/**
 * A configuration value cannot be used. The message names the key, the offending value and what
 * would have been accepted, so that it can be shown to the user as is.
 */
public final class IllegalConfigurationException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    public IllegalConfigurationException(String message) {
        super(message);
    }

    public IllegalConfigurationException(String message, Throwable cause) {
        super(message, cause);
    }
}
