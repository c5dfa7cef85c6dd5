package io.sluice.rest;

/**
 * A request the server refuses, with the HTTP status and a message that says what was wrong and
 * what to do. Answered as {@code {"error": message, "status": status}}.
 */
public class RestException extends RuntimeException {
    private final int status;

    public RestException(int status, String message) {
        super(message);
        if (status < 400 || status > 599) {
            throw new IllegalArgumentException("An error status is 4xx or 5xx, not " + status);
        }
        this.status = status;
    }

    public int status() {
        return status;
    }

    public static RestException badRequest(String message) {
        return new RestException(400, message);
    }

    public static RestException notFound(String message) {
        return new RestException(404, message);
    }
}
