package io.sluice.api.errors;

/**
 * A restored keyed state is declared with serializers of another type than the ones it was written
 * with (a {@code Long} counter that became a {@code String}, a state that gained or lost a
 * time-to-live), so its values cannot be read. The job fails at once, without using its restart
 * budget; the checkpoint or savepoint is left as it is. Restore with the job version that wrote the
 * state, give the changed state a new name (it then starts empty), or start without the state.
 */
public class StateTypeChangedException extends IllegalStateException implements UnrecoverableJobException {
    public StateTypeChangedException(String message) {
        super(message);
    }
}
