package io.sluice.jobmaster;

import java.util.UUID;
import java.util.function.BooleanSupplier;

/**
 * The fencing of a job master's RPC export (it is passed by reference to task executors): calls
 * must carry the job's leader session the job master runs under, and are refused once that
 * session no longer leads. The token is read from memory on every remote call, without a hop to
 * the main thread.
 *
 * <p>Threading: any thread; the session is set once by the job manager runner before the job
 * master starts.
 */
final class LeaderSessionFence {
    private final BooleanSupplier stillLeads;
    /** The job's leader session the job master speaks for, once set; {@code null} before. */
    private volatile UUID session;

    /** @param stillLeads whether the session still leads (the job master's {@code writesAllowed}) */
    LeaderSessionFence(BooleanSupplier stillLeads) {
        this.stillLeads = stillLeads;
    }

    void fenceWith(UUID session) {
        this.session = session;
    }

    /** The session while it still leads, else {@code null} (every fenced call is refused). */
    UUID token() {
        UUID s = session;
        return s != null && stillLeads.getAsBoolean() ? s : null;
    }
}
