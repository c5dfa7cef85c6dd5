package io.sluice.network;

/**
 * Called on the task thread just before it waits for input. A task flushes its record writers
 * here, so that a slow stream's last records do not sit in a half-full buffer.
 */
@FunctionalInterface
public interface IdleHook {
    IdleHook NONE = () -> { };

    void onIdle() throws Exception;
}
