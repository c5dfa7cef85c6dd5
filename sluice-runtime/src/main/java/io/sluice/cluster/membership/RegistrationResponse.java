package io.sluice.cluster.membership;

import java.io.Serializable;
import java.util.UUID;

/**
 * A job manager's answer to a task executor's registration. Serializable.
 *
 * @param outcome        accepted, or why not
 * @param registrationId the id of this registration (heartbeats carry it); {@code null} unless accepted
 * @param jobManagerId   the id of the job manager that answered
 * @param message        for a rejection: what is wrong and what to do; for acceptance a short note
 */
public record RegistrationResponse(Outcome outcome, UUID registrationId, String jobManagerId, String message)
        implements Serializable {

    public enum Outcome {
        /** Registered; send heartbeats with {@link #registrationId()}. */
        ACCEPTED,
        /** This job manager serves another cluster id: the task manager is misconfigured; retrying will not help soon. */
        WRONG_CLUSTER,
        /** This job manager does not lead (right now); the message names the leader if known. Retry. */
        NOT_LEADER
    }

    public static RegistrationResponse accepted(UUID registrationId, String jobManagerId) {
        return new RegistrationResponse(Outcome.ACCEPTED, registrationId, jobManagerId, "registered with " + jobManagerId);
    }

    public static RegistrationResponse rejected(Outcome outcome, String jobManagerId, String message) {
        if (outcome == Outcome.ACCEPTED) {
            throw new IllegalArgumentException("a rejection needs a reason other than ACCEPTED");
        }
        return new RegistrationResponse(outcome, null, jobManagerId, message);
    }

    public boolean isAccepted() {
        return outcome == Outcome.ACCEPTED;
    }
}
