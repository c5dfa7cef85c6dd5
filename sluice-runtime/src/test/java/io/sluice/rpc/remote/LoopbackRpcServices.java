package io.sluice.rpc.remote;

import io.sluice.config.Configuration;
import io.sluice.testutil.ManualScheduledExecutorService;
import java.util.ArrayList;
import java.util.List;

/**
 * The RPC services of one test, bound to loopback on free ports and sharing one manual timer (so
 * that RPC timeouts fire only when the test advances it), and whatever else the test registers;
 * {@link #close()} closes them in the order they were added and fails on the first failure to close.
 * Not thread-safe: use it from the test's own thread.
 */
final class LoopbackRpcServices implements AutoCloseable {
    private final ManualScheduledExecutorService timer = new ManualScheduledExecutorService();
    private final List<AutoCloseable> toClose = new ArrayList<>();

    /** The timer every service of {@link #start} schedules its timeouts on. */
    ManualScheduledExecutorService timer() {
        return timer;
    }

    /** A started service on 127.0.0.1 (a free port) with {@code conf}, closed by {@link #close()}. */
    RpcService start(Configuration conf) {
        return closeAfterTest(RpcService.builder().bind("127.0.0.1", 0).configuration(conf).timer(timer).start());
    }

    /** Registers {@code resource} to be closed by {@link #close()}, and returns it. */
    <T extends AutoCloseable> T closeAfterTest(T resource) {
        toClose.add(resource);
        return resource;
    }

    @Override
    public void close() throws Exception {
        for (AutoCloseable c : toClose) {
            c.close();
        }
    }
}
