package io.sluice.rpc;

import java.time.Duration;
import java.util.Objects;

/**
 * A component's main thread that, after every command it runs, calls {@code publish} on that same
 * thread: the component publishes an immutable snapshot of what it shows (a job's status and
 * details) after each change, so readers on other threads take the snapshot instead of queueing a
 * question behind the component's work. Commands run on the wrapped executor, in order, exactly as
 * before; {@code publish} runs even when a command throws.
 *
 * <p>Threading: {@link #execute} and {@link #schedule} from any thread; {@code publish} only ever
 * runs on the main thread (checked before each call).
 */
public final class PublishingMainThreadExecutor implements MainThreadExecutor {
    private final MainThreadExecutor delegate;
    private final Runnable publish;

    /**
     * @param delegate the component's main thread
     * @param publish  must not block nor throw; runs on the main thread after each command
     */
    public PublishingMainThreadExecutor(MainThreadExecutor delegate, Runnable publish) {
        this.delegate = Objects.requireNonNull(delegate, "delegate");
        this.publish = Objects.requireNonNull(publish, "publish");
    }

    /** The wrapped main thread. */
    public MainThreadExecutor delegate() {
        return delegate;
    }

    @Override
    public void execute(Runnable command) {
        Objects.requireNonNull(command, "command");
        delegate.execute(() -> runThenPublish(command));
    }

    @Override
    public ScheduledTask schedule(Runnable command, Duration delay) {
        Objects.requireNonNull(command, "command");
        return delegate.schedule(() -> runThenPublish(command), delay);
    }

    private void runThenPublish(Runnable command) {
        try {
            command.run();
        } finally {
            delegate.assertRunningInMainThread();
            publish.run();
        }
    }

    @Override
    public boolean isMainThread() {
        return delegate.isMainThread();
    }

    @Override
    public String componentName() {
        return delegate.componentName();
    }
}
