package io.sluice.cluster.membership;

import java.io.Serializable;
import java.util.UUID;

/**
 * A job manager's answer to "which leader session is yours?", the first step of every registration:
 * the task executor then registers, sends heartbeats and accepts calls only under that session (the
 * fencing token of the registry endpoint and of its own task executor endpoint). Serializable.
 *
 * @param jobManagerId  the id of the job manager that answered
 * @param leads         whether it leads the dispatcher now
 * @param leaderSession its dispatcher leader session while it leads; {@code null} when it does not lead,
 *                      or when it leads but is not fenced (a registry in one JVM without RPC)
 * @param message       for a standby: that it does not lead and who does, if known
 */
public record JobManagerSession(String jobManagerId, boolean leads, UUID leaderSession, String message)
        implements Serializable {

    /** The answer of a registry that leads without a fencing token (local, in one JVM). */
    public static JobManagerSession unfenced(String jobManagerId) {
        return new JobManagerSession(jobManagerId, true, null, jobManagerId + " leads (unfenced)");
    }
}
