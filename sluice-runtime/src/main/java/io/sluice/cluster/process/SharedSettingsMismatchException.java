package io.sluice.cluster.process;

import java.util.List;

/**
 * A job manager's setting that must agree with the leading job manager's ({@link SharedSettings#REQUIRED})
 * differs: it does not start ({@code sluice jobmanager} exits with 78, EX_CONFIG). The message names
 * each key with both values and what to do.
 */
public final class SharedSettingsMismatchException extends RuntimeException {
    private final List<SharedSettings.Difference> differences;

    public SharedSettingsMismatchException(String message, List<SharedSettings.Difference> differences) {
        super(message);
        this.differences = List.copyOf(differences);
    }

    public List<SharedSettings.Difference> differences() {
        return differences;
    }
}
