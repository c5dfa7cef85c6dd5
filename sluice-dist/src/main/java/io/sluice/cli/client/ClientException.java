package io.sluice.cli.client;

/** A client command cannot go on; {@link #exitCode()} is one of {@link io.sluice.cli.common.ExitCodes}, the message says why and what to do. */
final class ClientException extends Exception {
    private final int exitCode;

    ClientException(int exitCode, String message) {
        super(message);
        this.exitCode = exitCode;
    }

    ClientException(int exitCode, String message, Throwable cause) {
        super(message, cause);
        this.exitCode = exitCode;
    }

    int exitCode() {
        return exitCode;
    }
}
